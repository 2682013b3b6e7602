/// What `JSONStreamReader.readFlatObjects` tells of the objects it reads:
/// each one's members, names and scalar values located in the reader's
/// buffer, and its end, where the visitor takes the object or leaves it
/// (and all after it) to the reader's general methods.
protocol JSONFlatObjectVisitor {
    /// Whether to stop before the next object (its output is full).
    var isFull: Bool { get }
    /// An object begins.
    mutating func begin()
    /// A member with a scalar value: of the object itself, or (`nested`) of
    /// an object that is one of its member values.
    mutating func member(_ name: JSONName, _ value: JSONScalar, nested: Bool)
    /// A member whose value is an object; false leaves the whole object to
    /// the general methods.
    mutating func enterObject(_ name: JSONName) -> Bool
    /// The object ended; whether it is taken. When it is not, the read ends
    /// before it.
    mutating func end() -> Bool
}
