/// The visitor of flat objects that are only skipped: it takes each one.
struct SkippedObjects: JSONFlatObjectVisitor {
    var isFull: Bool { false }
    mutating func begin() {}
    mutating func member(_ name: JSONName, _ value: JSONScalar, nested: Bool) {}
    mutating func enterObject(_ name: JSONName) -> Bool { true }
    mutating func end() -> Bool { true }
}
