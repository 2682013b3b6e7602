extension Array where Element == UInt8 {
    /// These bytes with every occurrence of `pattern` replaced.
    func replacing(_ pattern: [UInt8], with replacement: [UInt8]) -> [UInt8] {
        guard !pattern.isEmpty, count >= pattern.count else { return self }
        var result: [UInt8] = []
        result.reserveCapacity(count)
        var index = 0
        while index < count {
            if self[index] == pattern[0], index + pattern.count <= count,
               self[index..<(index + pattern.count)].elementsEqual(pattern) {
                result += replacement
                index += pattern.count
            } else {
                result.append(self[index])
                index += 1
            }
        }
        return result
    }
}
