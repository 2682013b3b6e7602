import Dispatch
import EssentialFeed
import EssentialFeedNetwork
import FeedCLI
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Runs requests concurrently and writes one record per input item in input order.
///
/// Every item takes one of `parallel` slots from the moment it starts
/// until its record is written, so at most `parallel` requests are in flight
/// and at most that many finished records wait behind a slow one: memory
/// stays bounded whatever the input size. Items read ahead of their turn
/// wait in a queue (at most ``readAhead`` of them, a URL each), and the
/// next one starts as soon as a record is written, on the thread that wrote
/// it: the reader of the input is not on the way from one request to the
/// next. A URL asked for again while its first request is in flight joins
/// that request instead of sending another.
final class OrderedFetcher: @unchecked Sendable {
    /// Items read but not started, at most.
    static let readAhead = 256

    private let tool: Tool
    private let client: HTTPClient
    /// Items queued and not yet written, at most `limit`; the reader waits
    /// for room while they are that many, and is woken when they are down
    /// to half (woken for each written record, it took 3.4% of the time
    /// of 1,000 small files).
    private let room = Condition()
    private var unwritten = 0
    private let limit: Int
    private var readerWaits = false
    private let group = DispatchGroup()
    private let lock = Lock()
    private var nextSequence = 0
    private var nextToWrite = 0
    /// Slots not taken by an item started and not yet written.
    private var free: Int
    /// Items read and not started, in input order.
    private var pending = FIFO<(sequence: Int, item: Item)>()
    private var ready: [Int: Outcome] = [:]
    private var inFlight: [HTTPRequest: [Int]] = [:]
    /// Requests being sent (a request waiting for a descriptor is not).
    private var active = 0
    /// Requests that found no descriptor, sent again as others end.
    private var descriptorWaiters: [HTTPRequest] = []
    /// Whether running out of descriptors was said.
    private var shortageSaid = false

    /// An item read: a request to send, or a record known already.
    private enum Item {
        case request(HTTPRequest)
        case outcome(Outcome)
    }

    /// A finished item: its record line, and the failure it reports, if any.
    private struct Outcome {
        var line: [UInt8]
        var failure: ErrorKind?
        /// A message for standard error, written when the record is.
        var message: String?
        /// A response whose body is spooled: its record, written from the
        /// spool when due (then `line` is empty).
        var spooled: SpooledRecord?
    }

    init(tool: Tool, client: HTTPClient, parallel: Int) {
        self.tool = tool
        self.client = client
        free = parallel
        limit = parallel + Self.readAhead
    }

    /// Queues `item` in input order (waiting while the queue is full), and
    /// starts what the free slots allow.
    private func enqueue(_ item: Item) {
        room.lock()
        while unwritten >= limit {
            readerWaits = true
            room.wait()
        }
        unwritten += 1
        room.unlock()
        group.enter()
        lock.withLock {
            pending.append((nextSequence, item))
            nextSequence += 1
        }
        startWhatFits()
    }

    /// Starts queued items while slots are free.
    private func startWhatFits() {
        while let (sequence, item) = lock.withLock({ () -> (Int, Item)? in
            guard free > 0, let next = pending.popFirst() else { return nil }
            free -= 1
            return next
        }) {
            switch item {
            case let .outcome(outcome):
                complete(sequence, outcome)
            case let .request(request):
                start(sequence, request)
            }
        }
    }

    /// Queues a record line that goes through unchanged (an error record met on input).
    func passThrough(_ line: ArraySlice<UInt8>, kind: ErrorKind) {
        enqueue(.outcome(Outcome(line: Array(line), failure: kind, message: nil)))
    }

    /// Queues a failure of this tool (an invalid input line).
    func fail(_ error: ErrorRecord) {
        enqueue(.outcome(OrderedFetcher.outcome(error)))
    }

    /// Queues a GET of `request` (a plain URL, or with conditions).
    func fetch(_ request: HTTPRequest) {
        enqueue(.request(request))
    }

    /// Sends `request` as item `sequence`, or joins it to the same request in flight.
    private func start(_ sequence: Int, _ request: HTTPRequest) {
        let url = request.url
        let isNew: Bool = lock.withLock {
            if inFlight[request] != nil {
                inFlight[request]!.append(sequence)
                return false
            }
            inFlight[request] = [sequence]
            return true
        }
        guard isNew else {
            tool.diagnostics.trace("GET \(url): joined the request in flight")
            return
        }
        tool.diagnostics.debug("GET \(url): started")
        lock.withLock { active += 1 }
        send(request)
    }

    /// Sends `request` (counted in `active`) and files its outcome. A
    /// request the process had no descriptor for waits for another to end
    /// and goes again; with none left in flight, it is a `resource` failure,
    /// said once.
    private func send(_ request: HTTPRequest) {
        let url = request.url
        let diagnostics = tool.diagnostics
        let started = DispatchTime.now().uptimeNanoseconds
        client.get(request) { [self] result in
            let milliseconds = (DispatchTime.now().uptimeNanoseconds - started) / 1_000_000
            if case let .failure(failure) = result, failure.reason == .outOfDescriptors {
                let waits: Bool = lock.withLock {
                    active -= 1
                    guard active > 0 else { return false }
                    descriptorWaiters.append(request)
                    return true
                }
                if waits {
                    diagnostics.debug("GET \(url): \(failure.message); sent again when another request ends")
                    return
                }
            }
            let outcome: Outcome
            switch result {
            case let .success(response):
                let redirected = response.finalURL.map { ", redirected to \($0)" } ?? ""
                diagnostics.debug("GET \(url): \(response.status), \(counted(response.bodyCount, "byte")), \(milliseconds) ms\(redirected)")
                if let spilled = response.spilled?.spill as? SpooledBody {
                    do throws(ErrorRecord) {
                        let record = try SpooledRecord(url: Secrets.redactURL(url), response, spilled)
                        outcome = Outcome(line: [], failure: nil, message: nil, spooled: record)
                    } catch {
                        outcome = OrderedFetcher.outcome(ErrorRecord(error.kind, error.message, context: [.init("url", Secrets.redactURL(url))]))
                    }
                } else {
                    outcome = Outcome(line: OrderedFetcher.record(url: url, response), failure: nil, message: nil)
                }
            case let .failure(failure):
                diagnostics.debug("GET \(url): failed after \(milliseconds) ms: \(failure.message)")
                var message = failure.message
                if failure.reason == .outOfDescriptors {
                    message = "out of open files, with no other request in flight" + (Descriptor.openFileLimit().map { " (ulimit -n \($0))" } ?? "") + ": \(message)"
                }
                var failed = OrderedFetcher.outcome(ErrorRecord(OrderedFetcher.kind(of: failure), message, context: [.init("url", url)]))
                // Said once: every request after it would say the same.
                if failure.reason == .outOfDescriptors, lock.withLock({ defer { shortageSaid = true }; return shortageSaid }) { failed.message = nil }
                outcome = failed
            }
            let (waiting, next): ([Int], HTTPRequest?) = lock.withLock {
                if failureIsShortage(result) == false { active -= 1 }
                let next = descriptorWaiters.isEmpty ? nil : descriptorWaiters.removeFirst()
                if next != nil { active += 1 }
                return (inFlight.removeValue(forKey: request) ?? [], next)
            }
            for sequence in waiting { complete(sequence, outcome) }
            if let next { send(next) }
            startWhatFits()
        }
    }

    /// The response record: `url` is the URL asked for; `final_url` (only
    /// when redirects were followed) the one that answered; both with the
    /// password of their user-info shown as `***`.
    static func record(url: String, _ response: HTTPResult) -> [UInt8] {
        let record = Response.fromBody(
            url: Secrets.redactURL(url), status: response.status, bytes: response.body, finalURL: response.finalURL.map(Secrets.redactURL),
            etag: response.etag, lastModified: response.lastModified)
        var writer = JSONWriter(capacity: response.body.count + response.body.count / 3 + 256)
        record.write(to: &writer)
        return writer.bytes
    }

    /// The kind of a failed request: no response is a `connectivity`
    /// failure; a body over the size limit is this tool's `invalid_data`;
    /// no descriptor left, a `resource` failure.
    static func kind(of failure: HTTPFailure) -> ErrorKind {
        switch failure.reason {
        case .bodyTooLarge: .invalidData
        case .spill: .store
        case .outOfDescriptors: .resource
        default: .connectivity
        }
    }

    /// Whether `result` is a shortage of descriptors (then `active` was counted down already).
    private func failureIsShortage(_ result: Result<HTTPResult, HTTPFailure>) -> Bool {
        if case let .failure(failure) = result { return failure.reason == .outOfDescriptors }
        return false
    }

    private static func outcome(_ error: ErrorRecord) -> Outcome {
        let error = error.reported
        var writer = JSONWriter()
        error.write(to: &writer)
        var message = error.message
        if let url = error.context.first(where: { $0.key == "url" })?.value, !message.contains(url) {
            message = "\(url): \(message)"
        }
        return Outcome(line: writer.bytes, failure: error.kind, message: message)
    }

    /// Files a finished item and writes every record now due, in order,
    /// freeing their slots (the caller then starts what they make room for).
    private func complete(_ sequence: Int, _ outcome: Outcome) {
        lock.lock()
        ready[sequence] = outcome
        var written = 0
        while let due = ready.removeValue(forKey: nextToWrite) {
            if let message = due.message { tool.diagnostics.error(message) }
            if let kind = due.failure { tool.record(kind) }
            if let spooled = due.spooled {
                do throws(ErrorRecord) {
                    try tool.output.streamedRecord { (stream) throws(ErrorRecord) in try spooled.write(to: stream) }
                } catch {
                    tool.diagnostics.error(error.message)
                    tool.record(error.kind)
                }
            } else {
                tool.output.line(due.line)
            }
            nextToWrite += 1
            written += 1
        }
        if written > 0 { tool.output.flush() }
        free += written
        lock.unlock()
        if written > 0 {
            room.lock()
            unwritten -= written
            if readerWaits, unwritten <= limit / 2 {
                readerWaits = false
                room.signal()
            }
            room.unlock()
        }
        for _ in 0..<written { group.leave() }
    }

    /// Waits until every queued item has been written.
    func wait() {
        group.wait()
    }

    /// How many items were queued so far.
    var queued: Int { lock.withLock { nextSequence } }
}
