/// Where a response body goes once it outgrows memory: a client told how
/// (``BodySpilling``) keeps a body in memory up to a bound, then moves it
/// into a spill made for it and appends the rest there (feed-fetch: an
/// unlinked temporary file), so that a body of any size takes bounded memory.
public protocol BodySpill: AnyObject, Sendable {
    func append(_ bytes: UnsafeRawBufferPointer) throws(HTTPFailure)
}

/// When and where a client spills response bodies.
public struct BodySpilling: Sendable {
    /// The most body bytes kept in memory.
    public var memoryLimit: Int
    public var make: @Sendable () throws(HTTPFailure) -> any BodySpill

    public init(memoryLimit: Int, make: @escaping @Sendable () throws(HTTPFailure) -> any BodySpill) {
        self.memoryLimit = memoryLimit
        self.make = make
    }
}

/// A body kept in a spill: where, and how many bytes.
public struct SpilledBody: Sendable, Equatable {
    public let spill: any BodySpill
    public let count: Int

    public static func == (a: SpilledBody, b: SpilledBody) -> Bool {
        a.spill === b.spill && a.count == b.count
    }
}
