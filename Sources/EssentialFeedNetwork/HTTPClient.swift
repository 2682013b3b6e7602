
/// A response to a GET: any status counts, with the whole body.
public struct HTTPResult: Sendable, Equatable {
    public let status: Int
    public let body: [UInt8]
    /// The URL that answered, when redirects were followed to get there;
    /// nil when the URL asked for answered itself.
    public let finalURL: String?

    public init(status: Int, body: [UInt8], finalURL: String? = nil) {
        self.status = status
        self.body = body
        self.finalURL = finalURL
    }
}

/// Why no usable response arrived. Every reason is a `connectivity`
/// failure except `bodyTooLarge`: the server answered, but with more than
/// the client accepts to hold (an `invalid_data` failure of the client).
public struct HTTPFailure: Error, Sendable, Equatable {
    public enum Reason: Sendable, Equatable {
        case refused, cannotResolveHost, timedOut, connectionLost, tls, tooManyRedirects, bodyTooLarge, cancelled, badResponse, other
    }

    public let reason: Reason
    /// One line for a person, e.g. `connection refused`.
    public let message: String

    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }
}

/// A request in flight.
public protocol HTTPClientTask: Sendable {
    func cancel()
}

/// The boundary feed-fetch depends on: one GET, answered once on any thread.
public protocol HTTPClient: Sendable {
    @discardableResult
    func get(_ url: String, completion: @escaping @Sendable (Result<HTTPResult, HTTPFailure>) -> Void) -> HTTPClientTask
}
