#if FUZZING
import CFuzzDriver

extension Fuzzing {
    /// Runs libFuzzer on `target` with the process's arguments.
    ///
    /// SwiftPM links an executable's entry point under the name `<module>_main`, so libFuzzer's
    /// own `main` never runs; each target's entry point calls this instead.
    public static func run(
        _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
        _ target: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt {
        var count = argc
        var arguments = argv
        return LLVMFuzzerRunDriver(&count, &arguments, target)
    }
}
#endif
