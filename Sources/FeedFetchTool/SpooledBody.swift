import EssentialFeed
import EssentialFeedNetwork
import FeedCLI

/// A response body past its memory bound, in the tools' one spool (memory,
/// then an unlinked temporary file): what the HTTP clients spill to. Its
/// bytes are checked for JSON as they come (`BodyCheck`), when a thread
/// can be had for it.
final class SpooledBody: BodySpill, @unchecked Sendable {
    let spool: Spool
    let check: BodyCheck?

    init(environment: [String: String]) {
        spool = Spool(name: "feed-fetch", environment: environment, memoryLimit: 1 << 20)
        check = BodyCheck.start()
    }

    deinit { check?.cancel() }

    func append(_ bytes: UnsafeRawBufferPointer) throws(HTTPFailure) {
        do throws(ErrorRecord) {
            try spool.append(bytes)
        } catch {
            // No descriptor for the spool's file: the request waits for
            // another to end and goes again, as one without a socket does.
            throw HTTPFailure(error.kind == .resource ? .outOfDescriptors : .spill, error.message)
        }
        check?.append(bytes)
    }
}
