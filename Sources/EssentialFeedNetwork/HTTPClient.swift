import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A response to a GET: any status counts, with the whole body.
public struct HTTPResult: Sendable, Equatable {
    public let status: Int
    public let body: [UInt8]

    public init(status: Int, body: [UInt8]) {
        self.status = status
        self.body = body
    }
}

/// Why no response arrived: always a `connectivity` failure.
public struct HTTPFailure: Error, Sendable, Equatable {
    public enum Reason: Sendable, Equatable {
        case refused, cannotResolveHost, timedOut, connectionLost, tls, tooManyRedirects, cancelled, badResponse, other
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
