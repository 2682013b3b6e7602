/// Why no usable response arrived. Every reason is a `connectivity`
/// failure except `bodyTooLarge`: the server answered, but with more than
/// the client accepts to hold (an `invalid_data` failure of the client).
public struct HTTPFailure: Error, Sendable, Equatable {
    public enum Reason: Sendable, Equatable {
        case refused, cannotResolveHost, timedOut, connectionLost, tls, tooManyRedirects, bodyTooLarge, cancelled, badResponse, other
        /// The body could not be kept where it was to spill (a full disk): a local failure.
        case spill
    }

    public let reason: Reason
    /// One line for a person, e.g. `connection refused`.
    public let message: String

    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }
}
