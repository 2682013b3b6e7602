#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Why no usable response arrived. Every reason is a `connectivity`
/// failure except `bodyTooLarge`: the server answered, but with more than
/// the client accepts to hold (an `invalid_data` failure of the client);
/// `spill` and `outOfDescriptors`, local failures.
public struct HTTPFailure: Error, Sendable, Equatable {
    public enum Reason: Sendable, Equatable {
        case refused, cannotResolveHost, timedOut, connectionLost, tls, tooManyRedirects, bodyTooLarge, cancelled, badResponse, other
        /// The body could not be kept where it was to spill (a full disk): a local failure.
        case spill
        /// The process is out of descriptors (EMFILE, ENFILE): a local shortage, not the network's.
        case outOfDescriptors
    }

    /// The failure of a call that found the process out of descriptors, or nil for another `errno`.
    public static func outOfDescriptors(_ code: Int32, _ call: String) -> HTTPFailure? {
        guard code == EMFILE || code == ENFILE else { return nil }
        return HTTPFailure(.outOfDescriptors, "\(call): \(String(cString: strerror(code)))")
    }

    public let reason: Reason
    /// One line for a person, e.g. `connection refused`.
    public let message: String

    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }
}
