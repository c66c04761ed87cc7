import Foundation
import Logging
import SieveServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP connection to the loopback address, written and read byte for byte with a deadline on
/// every read: for what no HTTP client sends (slow heads, missing Host headers, huge declared
/// bodies) and for watching when the server closes. Its calls block: run them through
/// ``offThePool(_:)``.
final class RawConnection {
    private var socketDescriptor: Int32

    /// Connects to `127.0.0.1:port`.
    init(port: Int) throws {
        #if canImport(Glibc)
        socketDescriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        socketDescriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard socketDescriptor >= 0 else { throw POSIXError(.EMFILE) }
        #if canImport(Darwin)
        var one: Int32 = 1
        setsockopt(socketDescriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socketDescriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            _ = systemClose(socketDescriptor)
            throw POSIXError(.ECONNREFUSED)
        }
    }

    deinit { close() }

    /// Closes the connection (again: nothing).
    func close() {
        if socketDescriptor >= 0 { _ = systemClose(socketDescriptor) }
        socketDescriptor = -1
    }

    /// Sends `bytes`: `false` when the server has closed or reset the connection.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { systemSend(socketDescriptor, $0.baseAddress, $0.count) }
            if count <= 0 { return false }
            sent += count
        }
        return true
    }

    /// Sends `text` as UTF-8.
    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Reads until `done` says what came is enough, the server closes the connection, or
    /// `timeout` seconds pass: what came and whether the connection was closed.
    func read(timeout: Double, until done: ([UInt8]) -> Bool = { _ in false }) -> (bytes: [UInt8], closed: Bool) {
        let deadline = Date().addingTimeInterval(timeout)
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !done(received) {
            let left = deadline.timeIntervalSinceNow
            if left <= 0 { return (received, false) }
            var descriptor = pollfd(fd: socketDescriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Int32(max(1, left * 1000)))
            if ready < 0 { return (received, true) }
            if ready == 0 { continue }
            let count = buffer.withUnsafeMutableBytes { recv(socketDescriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return (received, true) }
            received.append(contentsOf: buffer[0..<count])
        }
        return (received, false)
    }

    /// The next answer, read within `timeout` seconds (`nil` when none came whole), and whether
    /// the connection was closed after it (waiting at most `closeWithin` seconds for that).
    func response(timeout: Double, closeWithin: Double = 0) -> (response: RawResponse?, closed: Bool) {
        let (bytes, closed) = read(timeout: timeout) { RawResponse(bytes: $0) != nil }
        let response = RawResponse(bytes: bytes)
        if closed || closeWithin <= 0 { return (response, closed) }
        return (response, waitForClose(timeout: closeWithin))
    }

    /// Whether the server closes the connection within `timeout` seconds (what comes meanwhile
    /// is thrown away).
    func waitForClose(timeout: Double) -> Bool { read(timeout: timeout).closed }
}

/// `close(2)`, out of reach of the method of the same name.
private func systemClose(_ descriptor: Int32) -> Int32 { close(descriptor) }

/// `send(2)`, never raising SIGPIPE.
private func systemSend(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
    send(descriptor, bytes, count, Int32(MSG_NOSIGNAL))
    #else
    send(descriptor, bytes, count, 0)
    #endif
}

/// An HTTP/1.1 answer read off a ``RawConnection``.
struct RawResponse: Sendable {
    var status: Int
    /// The headers, names lowercased.
    var headers: [String: String]
    var body: String

    /// The first answer of `bytes`, `nil` until it has come whole (its head and its
    /// `Content-Length` bytes).
    init?(bytes: [UInt8]) {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard let end = bytes.indices.dropLast(3).first(where: { bytes[$0..<($0 + 4)].elementsEqual(separator) }) else { return nil }
        let lines = String(decoding: bytes[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusLine = lines.first?.split(separator: " ") ?? []
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        guard bytes.count >= end + 4 + length else { return nil }
        self.status = status
        self.headers = headers
        body = String(decoding: bytes[(end + 4)..<(end + 4 + length)], as: UTF8.self)
    }

    /// Whether the answer says the connection closes.
    var closes: Bool { headers["connection"]?.lowercased() == "close" }

    /// The body as a JSON object (empty when it is not one).
    var object: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:]
    }
}

/// The value of blocking `work`, run on a thread of its own, not the tasks' cooperative pool
/// (which the server's request handling needs).
func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
    }
}

/// Runs `body` with the port of `server` serving on the loopback address (the configuration's
/// port must be 0), then stops it.
func withLiveServer(_ server: GeoSieveServer, _ body: @Sendable (Int) async throws -> Void) async throws {
    let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
    var logger = Logger(label: "live")
    logger.logLevel = .critical
    let quiet = logger
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await server.run(logger: quiet) { continuation.yield($0) } }
        var ports = stream.makeAsyncIterator()
        guard let port = await ports.next() else { throw CancellationError() }
        try await body(port)
        group.cancelAll()
    }
}
