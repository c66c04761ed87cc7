import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import SieveBase
import SieveFeatures
import SieveEditing
import SieveFormats
import SieveGeometry
import SieveJSON

/// The limits every connection of the server is held to, from ``ServerConfiguration``.
struct ConnectionLimits: Sendable {
    /// The time a client has to send a whole request head.
    var headerReadTimeout: TimeAmount
    /// The time a connection may receive nothing while no answer is being prepared on it.
    var idleTimeout: TimeAmount
    /// The largest body a request may declare.
    var maxBodyBytes: Int
    /// After a refusal, the input is read and thrown away until the client closes, so that the
    /// refusal reaches it (a close with unread input resets the connection, and the client may
    /// lose the answer): until nothing has come for `lingerPause`, …
    var lingerPause: TimeAmount = .seconds(2)
    /// … and at most for `lingerTotal`.
    var lingerTotal: TimeAmount = .seconds(10)

    init(_ configuration: ServerConfiguration) {
        headerReadTimeout = Self.amount(configuration.headerReadTimeout)
        idleTimeout = Self.amount(configuration.idleTimeout)
        maxBodyBytes = configuration.maxBodyBytes
    }

    /// `seconds` as a time amount (at least a millisecond).
    static func amount(_ seconds: Double) -> TimeAmount {
        .milliseconds(Swift.max(1, Int64((seconds * 1000).rounded())))
    }
}

/// The open connections of a server, bounded: at the bound a new connection takes the place of
/// the one that has waited longest with no request being answered on it; when every connection
/// has a request being answered, the new one is refused.
final class ConnectionRegistry: Sendable {
    private struct Entry {
        let channel: any Channel
        /// Whether a request is being read or answered on it.
        var busy: Bool
        /// When it opened or last became idle.
        var since: NIODeadline
    }

    private struct State {
        var next: UInt64 = 0
        var entries: [UInt64: Entry] = [:]
    }

    private let state = Locked(State())
    /// The most connections open at once.
    let limit: Int

    init(limit: Int) { self.limit = limit }

    /// The number of connections open.
    var count: Int { state.withLock { $0.entries.count } }

    /// Counts `channel` in, closing the connection idle the longest when the bound is reached:
    /// its number, or `nil` when every connection is busy (then `channel` is to be refused).
    func open(_ channel: any Channel) -> UInt64? {
        let (id, displaced): (UInt64?, (any Channel)?) = state.withLock { state in
            var displaced: (any Channel)?
            if state.entries.count >= limit {
                var oldest: (key: UInt64, since: NIODeadline)?
                for (key, entry) in state.entries where !entry.busy {
                    if oldest == nil || entry.since < (oldest?.since ?? entry.since) { oldest = (key, entry.since) }
                }
                guard let oldest else { return (nil, nil) }
                displaced = state.entries.removeValue(forKey: oldest.key)?.channel
            }
            state.next += 1
            state.entries[state.next] = Entry(channel: channel, busy: false, since: .now())
            return (state.next, displaced)
        }
        displaced?.close(promise: nil)
        return id
    }

    /// Marks connection `id` busy (a request read or answered) or idle.
    func setBusy(_ id: UInt64, _ busy: Bool) {
        state.withLock { state in
            guard var entry = state.entries[id], entry.busy != busy else { return }
            entry.busy = busy
            if !busy { entry.since = .now() }
            state.entries[id] = entry
        }
    }

    /// Counts connection `id` out.
    func close(_ id: UInt64) {
        _ = state.withLock { $0.entries.removeValue(forKey: id) }
    }
}

/// Hummingbird's HTTP/1.1 child channel with ``ConnectionWatch`` in its pipeline (between
/// SwiftNIO's request decoder and the conversion to HTTP types, where a request head still has
/// its version and every header line) and ``ReceivedBytesHandler`` in front of it.
struct GuardedHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let http1: HTTP1Channel
    let limits: ConnectionLimits
    let registry: ConnectionRegistry

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let watch = ConnectionWatch(limits: limits, registry: registry, logger: logger)
        do {
            try channel.pipeline.syncOperations.addHandler(ReceivedBytesHandler(watch: watch), position: .first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return http1.setup(channel: channel, logger: logger).assumeIsolated().flatMapThrowing { value in
            let operations = channel.pipeline.syncOperations
            let decoder = try operations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try operations.addHandler(watch, position: .after(decoder))
            return value
        }.nonisolated()
    }

    func handle(value: Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}

/// The first handler of a connection: tells its ``ConnectionWatch`` when bytes come (the start
/// of a request head, activity during a body) and throws input away once the connection is
/// closing.
final class ReceivedBytesHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let watch: ConnectionWatch

    init(watch: ConnectionWatch) { self.watch = watch }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if watch.received(unwrapInboundIn(data)) { context.fireChannelRead(data) }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed { watch.inputClosed() }
        context.fireUserInboundEventTriggered(event)
    }
}

/// Holds one connection to HTTP's promises and the server's limits:
///
/// - a request head must arrive whole within the header timeout (a slow head is answered 408
///   and closed, a connection that sent nothing is closed);
/// - a connection receiving nothing while no answer is being prepared is closed after the idle
///   timeout (keep-alive between requests, a body that stalls);
/// - an HTTP/1.1 request without `Host`, or any request with two, is answered 400 (RFC 9112
///   §3.2); a request declaring a body over the limit is answered 413 from its head, before any
///   of the body is read;
/// - a request SwiftNIO cannot parse is answered 400, 414 (a request line over the size limit)
///   or 431 (headers over it);
/// - after such a refusal, after an answer with `Connection: close` and after the answer to a
///   request that does not keep the connection alive, the connection is closed: its output at
///   once, its input once the client closes or stops sending (lingering, so that the answer is
///   not lost to a reset).
///
/// It also keeps the connection's place in the ``ConnectionRegistry``.
final class ConnectionWatch: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// An answer written here, not by the router.
    struct Refusal {
        var status: Int
        var reason: String
        var code: String
        var message: String
        /// The request's path, when known: the error document's shape follows the protocol.
        var path: String?
    }

    private let limits: ConnectionLimits
    private let registry: ConnectionRegistry
    private let logger: Logger
    private var context: ChannelHandlerContext?
    private var id: UInt64?
    private var started = false

    /// Requests passed on whose answer has not ended.
    private var answersPending = 0
    /// Whether the body of the last request passed on is still coming.
    private var readingBody = false
    /// When the head being read started (the connection's opening for its first request).
    private var headStarted: NIODeadline?
    /// Whether bytes of the head being read have come.
    private var headBytes = false
    /// Whether the request line of the head being read has ended (for 414 or 431).
    private var requestLineEnded = false
    private var lastReceived = NIODeadline.now()
    private var idleSince = NIODeadline.now()
    /// A refusal waiting for the answers in flight.
    private var refusal: Refusal?
    /// Whether requests are no longer read (after a refusal, or a request that closes).
    private var discarding = false
    /// Whether the connection closes once the answers in flight are written.
    private var closeWhenAnswered = false
    private var lingerStarted: NIODeadline?
    private var inputIsClosed = false
    private var outputIsClosed = false
    private var timer: Scheduled<Void>?
    private var timerDeadline: NIODeadline?

    init(limits: ConnectionLimits, registry: ConnectionRegistry, logger: Logger) {
        self.limits = limits
        self.registry = registry
        self.logger = logger
    }

    // MARK: Life of the connection

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { start(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimer()
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelTimer()
        if let id { registry.close(id) }
        id = nil
        context.fireChannelInactive()
    }

    /// Takes the connection's place under the bound and starts the header timeout.
    private func start(_ context: ChannelHandlerContext) {
        guard !started else { return }
        started = true
        let now = NIODeadline.now()
        headStarted = now
        idleSince = now
        lastReceived = now
        guard let id = registry.open(context.channel) else {
            logger.debug("connection refused: every connection is busy", metadata: ["connections": "\(registry.limit)"])
            discarding = true
            let refusal = Refusal(
                status: 503, reason: "Service Unavailable", code: "ServiceUnavailable",
                message: "the server has \(registry.limit) connections open, each with a request in progress: try again")
            write(refusal, context: context, thenClose: true)
            return
        }
        self.id = id
        schedule()
    }

    // MARK: Input

    /// Bytes came: whether to pass them on (not once the connection is closing).
    func received(_ buffer: ByteBuffer) -> Bool {
        let now = NIODeadline.now()
        lastReceived = now
        if discarding || lingerStarted != nil { return false }
        if !readingBody {
            if headStarted == nil { headStarted = now }
            headBytes = true
            if !requestLineEnded, buffer.readableBytesView.contains(UInt8(ascii: "\n")) { requestLineEnded = true }
            schedule()
        }
        return true
    }

    /// The client closed its side.
    func inputClosed() {
        inputIsClosed = true
        guard let context else { return }
        // Lingering ends; an idle connection will get no more requests.
        if lingerStarted != nil || (answersPending == 0 && !readingBody && refusal == nil) {
            context.close(promise: nil)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            headStarted = nil
            headBytes = false
            requestLineEnded = false
            if discarding || closeWhenAnswered { return }
            if let refusal = check(head) {
                logger.debug("request refused", metadata: ["status": "\(refusal.status)", "reason": "\(refusal.message)"])
                refuse(refusal, context: context)
                return
            }
            answersPending += 1
            readingBody = true
            if answersPending == 1, let id { registry.setBusy(id, true) }
            // HTTP/1.0 without keep-alive, or `Connection: close`: the last request read.
            if !head.isKeepAlive { closeWhenAnswered = true }
            schedule()
            context.fireChannelRead(data)
        case .body:
            if discarding { return }
            context.fireChannelRead(data)
        case .end:
            if discarding { return }
            readingBody = false
            schedule()
            context.fireChannelRead(data)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Once the connection is refused, the decoder's further complaints are moot.
        if discarding || lingerStarted != nil { return }
        guard let parse = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        if readingBody {
            // A malformed body: the router answers (its body read fails), then the connection closes.
            closeWhenAnswered = true
            discarding = true
            context.fireErrorCaught(error)
            return
        }
        let refusal: Refusal
        switch parse {
        case .headerOverflow where !requestLineEnded:
            refusal = Refusal(status: 414, reason: "URI Too Long", code: "URITooLong", message: "the request line is over the size limit")
        case .headerOverflow:
            refusal = Refusal(
                status: 431, reason: "Request Header Fields Too Large", code: "RequestHeaderFieldsTooLarge",
                message: "the request headers are over the size limit")
        default:
            refusal = Refusal(status: 400, reason: "Bad Request", code: "BadRequest", message: "the request is not well-formed HTTP/1.1 (\(parse))")
        }
        logger.debug("request refused", metadata: ["status": "\(refusal.status)", "reason": "\(refusal.message)"])
        refuse(refusal, context: context)
    }

    /// What is wrong with `head` that must be refused before the router sees it.
    func check(_ head: HTTPRequestHead) -> Refusal? {
        var hosts = 0
        var declaredLength: Substring?
        for (name, value) in head.headers {
            if name.count == 4, name.lowercased() == "host" { hosts += 1 }
            if name.count == 14, name.lowercased() == "content-length" { declaredLength = value.trimmingWhitespace() }
        }
        let path = String(head.uri.prefix { $0 != "?" })
        let http11 = head.version.major > 1 || (head.version.major == 1 && head.version.minor >= 1)
        if hosts > 1 {
            return Refusal(
                status: 400, reason: "Bad Request", code: "BadRequest",
                message: "the request has \(hosts) Host headers; it may have one (RFC 9112 §3.2)", path: path)
        }
        if hosts == 0, http11 {
            return Refusal(
                status: 400, reason: "Bad Request", code: "BadRequest", message: "an HTTP/1.1 request needs a Host header (RFC 9112 §3.2)",
                path: path)
        }
        if let declaredLength, !declaredLength.isEmpty, declaredLength.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) {
            // More digits than an Int holds is over any limit.
            let length = declaredLength.utf8.count > 18 ? Int.max : Int(declaredLength) ?? Int.max
            if length > limits.maxBodyBytes {
                return Refusal(
                    status: 413, reason: "Content Too Large", code: "ContentTooLarge",
                    message: "the request declares a body of \(declaredLength) bytes, over the limit of \(limits.maxBodyBytes)", path: path)
            }
        }
        return nil
    }

    /// Refuses the request being read: at once, or after the answers in flight.
    private func refuse(_ refusal: Refusal, context: ChannelHandlerContext) {
        discarding = true
        if answersPending > 0 {
            if self.refusal == nil { self.refusal = refusal }
            return
        }
        write(refusal, context: context, thenClose: false)
        startLingering(context)
    }

    // MARK: Output

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if outputIsClosed {
            promise?.fail(ChannelError.outputClosed)
            return
        }
        let part = unwrapOutboundIn(data)
        switch part {
        case .head(let head):
            if head.status.code >= 200, head.headers[canonicalForm: "connection"].contains(where: { $0.lowercased() == "close" }) {
                closeWhenAnswered = true
            }
            context.write(data, promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            context.write(data, promise: promise)
            if answersPending > 0 { answersPending -= 1 }
            guard answersPending == 0 else { return }
            let now = NIODeadline.now()
            idleSince = now
            if headStarted != nil { headStarted = now }
            if let id { registry.setBusy(id, false) }
            if let refusal {
                self.refusal = nil
                write(refusal, context: context, thenClose: false)
                startLingering(context)
            } else if closeWhenAnswered || (inputIsClosed && !readingBody) {
                discarding = true
                context.flush()
                startLingering(context)
            } else {
                schedule()
            }
        }
    }

    /// Writes `refusal` (with `Connection: close`), then closes the connection when asked.
    private func write(_ refusal: Refusal, context: ChannelHandlerContext, thenClose: Bool) {
        let body = ByteBuffer(string: Self.document(refusal))
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
        headers.add(name: "Content-Length", value: "\(body.readableBytes)")
        headers.add(name: "Connection", value: "close")
        if refusal.status == 503 { headers.add(name: "Retry-After", value: "1") }
        let head = HTTPResponseHead(
            version: .http1_1, status: HTTPResponseStatus(statusCode: refusal.status, reasonPhrase: refusal.reason), headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: written)
        if thenClose {
            let channel = context.channel
            written.futureResult.whenComplete { _ in channel.close(promise: nil) }
        }
    }

    /// The error document of `refusal`: OGC API's exception outside the ArcGIS services,
    /// ArcGIS's error document inside.
    static func document(_ refusal: Refusal) -> String {
        if let path = refusal.path, path.hasPrefix("/arcgis") {
            var error = JSONObject()
            error.append("code", .integer(refusal.status))
            error.append("message", .string(refusal.message))
            error.append("details", .array([]))
            return JSONWriter.string(.object(JSONObject([("error", .object(error))])))
        }
        return JSONWriter.string(.object(JSONObject([("code", .string(refusal.code)), ("description", .string(refusal.message))])))
    }

    /// Closes the output once what is written has gone, then reads and throws away the input
    /// until the client closes or stops sending.
    private func startLingering(_ context: ChannelHandlerContext) {
        guard lingerStarted == nil else { return }
        discarding = true
        readingBody = false
        let now = NIODeadline.now()
        lingerStarted = now
        lastReceived = now
        context.flush()
        if inputIsClosed {
            context.close(promise: nil)
            return
        }
        outputIsClosed = true
        let channel = context.channel
        let closed = context.eventLoop.makePromise(of: Void.self)
        closed.futureResult.whenFailure { error in
            // Output closed already (by the router's end of the connection) is fine; anything
            // else closes the whole connection.
            if let error = error as? ChannelError, error == .outputClosed { return }
            channel.close(promise: nil)
        }
        context.close(mode: .output, promise: closed)
        schedule()
    }

    // MARK: Timeouts

    /// When the connection is to be closed unless something happens, `nil` while an answer is
    /// being prepared.
    private var deadline: NIODeadline? {
        if let lingerStarted { return Swift.min(lingerStarted + limits.lingerTotal, lastReceived + limits.lingerPause) }
        if readingBody { return lastReceived + limits.idleTimeout }
        if answersPending > 0 { return nil }
        if let headStarted { return headStarted + limits.headerReadTimeout }
        return idleSince + limits.idleTimeout
    }

    /// Makes the timer fire at the deadline or before (it then looks again).
    private func schedule() {
        guard let context else { return }
        guard let deadline else {
            cancelTimer()
            return
        }
        if let timerDeadline, timerDeadline <= deadline { return }
        timer?.cancel()
        timerDeadline = deadline
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [weak self] in self?.timerFired() }
    }

    private func cancelTimer() {
        timer?.cancel()
        timer = nil
        timerDeadline = nil
    }

    private func timerFired() {
        timer = nil
        timerDeadline = nil
        guard let context, let deadline else { return }
        if deadline > .now() {
            schedule()
            return
        }
        if lingerStarted != nil || readingBody || !headBytes || discarding {
            // Lingering over, a body stalled, a connection idle or that never sent anything.
            context.close(promise: nil)
            return
        }
        // Part of a head, not the rest in time.
        let seconds = Double(limits.headerReadTimeout.nanoseconds) / 1e9
        logger.debug("request head not received in time", metadata: ["timeout": "\(seconds)"])
        discarding = true
        write(
            Refusal(
                status: 408, reason: "Request Timeout", code: "RequestTimeout",
                message: "the request head did not arrive within \(seconds) s"),
            context: context, thenClose: true)
    }
}
