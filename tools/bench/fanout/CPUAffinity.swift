import Foundation

/// Pins this process to one core, so the load tool and the relay under test do not steal each
/// other's CPU. `sched_setaffinity` is hidden behind _GNU_SOURCE in Glibc's Swift module, so we
/// ask `taskset -a -p` (every thread, including the ones the runtime already started).
enum CPUAffinity {
    static func pinCurrentProcess(to core: Int) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
        process.arguments = ["-a", "-p", "-c", "\(core)", "\(ProcessInfo.processInfo.processIdentifier)"]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchError("taskset could not pin us to core \(core)") }
    }
}
