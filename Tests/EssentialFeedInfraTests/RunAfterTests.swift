@testable import EssentialFeedNetwork
import XCTest

final class RunAfterTests: XCTestCase {
    final class Log: @unchecked Sendable {
        private let lock = NSLock()
        private var entries: [String] = []
        func add(_ entry: String) { lock.withLock { entries.append(entry) } }
        var all: [String] { lock.withLock { entries } }
    }

    func test_runAfter_runsEachBodyOnce_byDeadline_andThoseDueTogetherInTheOrderGiven() {
        let log = Log()
        let done = expectation(description: "all ran")
        done.expectedFulfillmentCount = 5
        let started = Date()
        for (name, seconds) in [("c", 0.3), ("a", 0.1), ("b1", 0.2), ("b2", 0.2), ("now", 0)] {
            XCTAssertTrue(runAfter(seconds: seconds) {
                log.add(name)
                done.fulfill()
            })
        }
        wait(for: [done], timeout: 2)
        XCTAssertEqual(log.all, ["now", "a", "b1", "b2", "c"])
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.3)
    }

    func test_runAfter_anEarlierBodyGivenLater_doesNotWaitForALaterOne() {
        let log = Log()
        let running = expectation(description: "the thread runs")
        XCTAssertTrue(runAfter(seconds: 0) { running.fulfill() })
        wait(for: [running], timeout: 2)
        let done = expectation(description: "the early one ran")
        XCTAssertTrue(runAfter(seconds: 3) { log.add("late") })
        usleep(50_000) // the thread now waits for the late one
        let started = Date()
        XCTAssertTrue(runAfter(seconds: 0.05) {
            log.add("early")
            done.fulfill()
        })
        wait(for: [done], timeout: 2)
        XCTAssertLessThan(Date().timeIntervalSince(started), 1)
        XCTAssertEqual(log.all, ["early"])
    }
}
