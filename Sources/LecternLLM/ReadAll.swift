import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension FileHandle {
    /// Everything up to the end of the file, read with read(2) and read again when a signal
    /// interrupts it (EINTR). Foundation's `readDataToEndOfFile` traps on EINTR, which a child
    /// process's SIGCHLD causes when it exits while its parent is blocked reading its pipe (seen
    /// in the test suite on a loaded machine). A read error other than EINTR ends it with what was
    /// read.
    public func readAllRetryingInterrupts() -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fileDescriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                data.append(contentsOf: buffer[0..<count])
            } else if count == 0 || errno != EINTR {
                return data
            }
        }
    }
}
