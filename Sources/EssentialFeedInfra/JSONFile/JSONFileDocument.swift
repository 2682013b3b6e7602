import EssentialFeed

/// A store's document, open.
struct JSONFileDocument {
    enum Content {
        /// No file, or an empty one.
        case empty
        case readable(JSONFeedDocumentSummary)
        /// Not JSON, or its image data is damaged: it can only be reset.
        case unreadable(ErrorRecord)
    }

    /// -1 when there is no file.
    let fd: Int32
    let size: Int
    let content: Content

    var exists: Bool { fd >= 0 }
}
