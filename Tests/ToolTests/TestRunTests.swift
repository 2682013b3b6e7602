import Foundation
import XCTest

/// The test command runs the tool tests on the installed release tools,
/// where those that need a hook of debug builds skip; it runs them on the
/// debug build by a filter of names. A test of that kind whose name the
/// filter missed ran nowhere (two did, unseen).
final class TestRunTests: XCTestCase {
    /// A command that ends without reading its input: the helper's write to
    /// the pipe fails, and must not end the test process by SIGPIPE (a run
    /// of the tool tests ended so, with no word, where a tool refused its
    /// store before reading its input).
    func test_sh_ofACommandThatLeavesItsInputUnread_endsNoTest() {
        let run = sh("exit 3", stdin: String(repeating: "x", count: 1 << 20))
        XCTAssertEqual(run.status, 3)
    }

    func test_everyToolTestOfDebugHooks_isInTheDebugRunsFilter() throws {
        let root = DocumentedRecipeTests.root
        let script = try String(contentsOf: root.appendingPathComponent("scripts/test"), encoding: .utf8)
        let line = try XCTUnwrap(script.split(separator: "\n").first { $0.hasPrefix("debug_tool_tests='") })
        let filter = try NSRegularExpression(pattern: String(line.dropFirst("debug_tool_tests='".count).dropLast()))
        let folder = root.appendingPathComponent("Tests/ToolTests")
        // Each function of each file, with its class: (class, name, body).
        var functions: [(className: String, name: String, body: String)] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasSuffix(".swift") {
            var text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for modifier in ["private ", "fileprivate ", "static "] { text = text.replacingOccurrences(of: "\n    \(modifier)func ", with: "\n    func ") }
            var className = ""
            for chunk in text.components(separatedBy: "\n    func ") {
                if let declaration = chunk.range(of: #"(final class|extension) (\w+)"#, options: .regularExpression) {
                    className = String(chunk[declaration].split(separator: " ").last!)
                }
                functions.append((className, String(chunk.prefix { $0 != "(" }), chunk))
            }
        }
        // The helpers that skip outside debug builds (wherever they are),
        // then the tests that skip or call one.
        let skipping = ["FEED_BIN\"] == nil else"] + functions.filter { !$0.name.hasPrefix("test_") && $0.body.contains("FEED_BIN\"] == nil else") }.map { $0.name + "(" }
        let debugOnly = functions.filter { $0.name.hasPrefix("test_") && skipping.contains(where: $0.body.contains) }.map { $0.className + "." + $0.name }
        XCTAssertGreaterThan(debugOnly.count, 5, "\(debugOnly)")
        for test in debugOnly {
            XCTAssertNotNil(filter.firstMatch(in: test, range: NSRange(test.startIndex..., in: test)), "\(test) runs nowhere: add it to debug_tool_tests in scripts/test")
        }
    }
}
