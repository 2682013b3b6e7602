import CSandbox
@testable import Sandbox
import XCTest

/// The seccomp program, run by a small interpreter of classic BPF on the
/// data the kernel hands it (number, architecture, arguments): what each
/// call gets, the allowed side of each condition as well as the refused
/// one, with the arguments a tool taken over would pass.
final class SeccompProgramTests: XCTestCase {
    private let allow = UInt32(SECCOMP_RET_ALLOW), refuse = UInt32(SECCOMP_RET_ERRNO) | UInt32(EPERM)
    private let process: UInt32 = 4242
    private let owner = SandboxRules.Owner(user: 1000, group: 1001)

    /// What `program` returns for the call `number` with `arguments`.
    private func run(_ program: [sock_filter], _ number: UInt32, _ arguments: [UInt64] = [], arch: UInt32 = feed_audit_arch) -> UInt32 {
        var data = [UInt8](repeating: 0, count: 64)
        func put(_ value: UInt64, at offset: Int, bytes: Int) {
            for index in 0..<bytes { data[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
        }
        put(UInt64(number), at: 0, bytes: 4)
        put(UInt64(arch), at: 4, bytes: 4)
        for (index, argument) in arguments.enumerated() { put(argument, at: 16 + 8 * index, bytes: 8) }
        var accumulator: UInt32 = 0
        var counter = 0
        while counter < program.count {
            let instruction = program[counter]
            let k = instruction.k
            func jump(_ taken: Bool) { counter += 1 + Int(taken ? instruction.jt : instruction.jf) }
            switch Int32(instruction.code) {
            case BPF_LD | BPF_W | BPF_ABS:
                accumulator = (0..<4).reduce(0) { $0 | UInt32(data[Int(k) + $1]) << (8 * $1) }
                counter += 1
            case BPF_JMP | BPF_JEQ | BPF_K: jump(accumulator == k)
            case BPF_JMP | BPF_JGE | BPF_K: jump(accumulator >= k)
            case BPF_JMP | BPF_JSET | BPF_K: jump(accumulator & k != 0)
            case BPF_JMP | BPF_JA: counter += 1 + Int(k)
            case BPF_RET | BPF_K: return k
            default: XCTFail("an instruction the filter does not use: \(instruction.code)"); return 0
            }
        }
        XCTFail("the program ran past its end")
        return 0
    }

    private func program(owners: [SandboxRules.Owner] = [], network: SandboxRules.Network = .none) -> [sock_filter] {
        Sandbox.program(refusing: Sandbox.refusedCalls(network), conditional: Sandbox.conditionalCalls(owners: owners), process: process)
    }

    func test_callsOnOtherProcesses_areRefused_andOnItselfAllowed() {
        let filter = program()
        XCTAssertEqual(run(filter, feed_nr_kill, [UInt64(process), 15]), allow)
        XCTAssertEqual(run(filter, feed_nr_kill, [1, 15]), refuse)
        XCTAssertEqual(run(filter, feed_nr_tgkill, [UInt64(process), 4243, 10]), allow)
        XCTAssertEqual(run(filter, feed_nr_tgkill, [1, 1, 10]), refuse)
        for call in [feed_nr_tkill, feed_nr_pidfd_send_signal, feed_nr_ptrace, feed_nr_execve, feed_nr_process_vm_writev] {
            XCTAssertEqual(run(filter, call, [UInt64(process)]), refuse, "\(call)")
        }
        XCTAssertEqual(run(filter, 0, [0]), allow, "read")
        XCTAssertEqual(run(filter, 0, [0], arch: 0x4000_0003), refuse, "another architecture")
    }

    func test_modesOwnersTimesAndAttributes_asTheToolsSetThem_only() {
        let filter = program(owners: [owner])
        XCTAssertEqual(run(filter, feed_nr_chmod, [0, 0o600]), allow)
        XCTAssertEqual(run(filter, feed_nr_chmod, [0, 0o700]), allow)
        XCTAssertEqual(run(filter, feed_nr_chmod, [0, 0o666]), refuse)
        XCTAssertEqual(run(filter, feed_nr_fchmodat, [0, 0, 0o644]), refuse)
        XCTAssertEqual(run(filter, feed_nr_fchmod, [3, 0o644]), allow)
        XCTAssertEqual(run(filter, feed_nr_fchmod, [3, 0o664]), allow)
        for mode: UInt64 in [0o666, 0o4755, 0o2755, 0o1777] { XCTAssertEqual(run(filter, feed_nr_fchmod, [3, mode]), refuse, String(mode, radix: 8)) }
        XCTAssertEqual(run(filter, feed_nr_fchown, [3, 1000, 1001]), allow)
        XCTAssertEqual(run(filter, feed_nr_fchown, [3, 0xFFFF_FFFF, 0xFFFF_FFFF]), allow)
        XCTAssertEqual(run(filter, feed_nr_fchown, [3, 1000, 0xFFFF_FFFF]), allow)
        XCTAssertEqual(run(filter, feed_nr_fchown, [3, 0, 1001]), refuse)
        XCTAssertEqual(run(filter, feed_nr_fchown, [3, 1000, 0]), refuse)
        XCTAssertEqual(run(program(), feed_nr_fchown, [3, 1000, 1001]), refuse, "no owner at all")
        XCTAssertEqual(run(program(owners: [owner, .init(user: 7, group: 8)]), feed_nr_fchown, [3, 7, 8]), allow, "the second owner")
        XCTAssertEqual(run(filter, feed_nr_utimensat, [3, 0, 0, 0]), allow, "futimens")
        XCTAssertEqual(run(filter, feed_nr_utimensat, [0xFFFF_FF9C, 0x7FFF_0000_1000, 0, 0]), refuse, "by path")
        for call in [feed_nr_fchownat, feed_nr_chown, feed_nr_fsetxattr, feed_nr_setxattr, feed_nr_fremovexattr, feed_nr_file_setattr] {
            XCTAssertEqual(run(filter, call, [3, 0, 0]), refuse, "\(call)")
        }
    }

    func test_descriptorsSignalsTerminalsAndFlags_areRefused_andTheRestOfFcntlAndIoctlAllowed() {
        let filter = program()
        for command: UInt64 in [8, 10, 15] { XCTAssertEqual(run(filter, feed_nr_fcntl, [3, command, UInt64(process)]), refuse, "fcntl \(command)") }
        XCTAssertEqual(run(filter, feed_nr_fcntl, [3, 2, 1]), allow, "F_SETFD")
        for request: UInt64 in [0x5412, 0x541C, 0x540E, 0x541D, 0x8901, 0x8902, 0x4008_6602, 0x401C_5820, 0x5437, 0x5423, 0x1_0000_5412] {
            XCTAssertEqual(run(filter, feed_nr_ioctl, [0, request, 0]), refuse, String(request, radix: 16))
        }
        XCTAssertEqual(run(filter, feed_nr_ioctl, [1, 0x5413, 0]), allow, "TIOCGWINSZ")
    }

    func test_socketsAsTheNetworkRuleSays() {
        XCTAssertEqual(run(program(network: .none), feed_nr_socket, [2, 1, 0]), refuse)
        XCTAssertEqual(run(program(network: .client), feed_nr_socket, [2, 1, 0]), allow)
        XCTAssertEqual(run(program(network: .client), feed_nr_bind, [3]), refuse)
        XCTAssertEqual(run(program(network: .server), feed_nr_connect, [3]), refuse)
    }
}
