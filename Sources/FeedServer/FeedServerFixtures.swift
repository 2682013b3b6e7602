import Foundation

/// The data a `FeedServer` serves: the whole feed in order, the comments of
/// some images, and image bytes by name. Everything is held in memory.
///
/// Build one in code, use a built-in set (``demo``, ``acceptance``), or
/// ``load(directory:)`` a fixture directory laid out as:
///
///     DIR/feed.json            {"items":[{"id","description"?,"location"?,"image"}, ...]}
///                              the whole feed, in order (API form)
///     DIR/comments/UUID.json   {"items":[{"id","message","created_at","author":{"username"}}, ...]}
///                              the comments of image UUID (API form); optional
///     DIR/images/NAME          bytes served at BASE/NAME; optional
///
/// Any string in the JSON, and any image whose name ends in `.json`, may
/// contain `{{base}}`, which is replaced when served with the server's base
/// URL (`http://127.0.0.1:PORT`), e.g. `"image":"{{base}}/image-0.png"`.
public struct FeedServerFixtures: Sendable, Equatable {
    /// One item of the feed, in API form. `id` is served as written.
    public struct FeedItem: Sendable, Equatable {
        public var id: String
        public var description: String?
        public var location: String?
        /// The image URL (may contain `{{base}}`).
        public var image: String

        public init(id: String, description: String? = nil, location: String? = nil, image: String) {
            self.id = id
            self.description = description
            self.location = location
            self.image = image
        }
    }

    /// One comment of an image, in API form.
    public struct Comment: Sendable, Equatable {
        public var id: String
        public var message: String
        /// As written, e.g. `2020-05-20T11:24:59+0000`.
        public var createdAt: String
        public var username: String

        public init(id: String, message: String, createdAt: String, username: String) {
            self.id = id
            self.message = message
            self.createdAt = createdAt
            self.username = username
        }
    }

    /// The whole feed, in order.
    public var feed: [FeedItem]
    /// Comments by image id; an image missing here has no comments.
    public var comments: [UUID: [Comment]]
    /// Image bytes by name, served at `BASE/NAME`.
    public var images: [String: [UInt8]]

    public init(feed: [FeedItem] = [], comments: [UUID: [Comment]] = [:], images: [String: [UInt8]] = [:]) {
        self.feed = feed
        self.comments = comments
        self.images = images
    }
}

// MARK: - Loading a fixture directory

public extension FeedServerFixtures {
    /// Why a fixture directory cannot be loaded: the file and the reason.
    struct LoadError: Error, Equatable, CustomStringConvertible {
        public enum Kind: Sendable, Equatable {
            /// The directory or `feed.json` does not exist.
            case notFound
            /// A file exists but cannot be read.
            case unreadable
            /// A file breaks the fixture rules.
            case invalid
        }

        public var kind: Kind
        /// The path of the offending file or directory.
        public var path: String
        public var reason: String

        public var description: String { "\(path): \(reason)" }
    }

    /// Loads a fixture directory (layout in the type's documentation).
    ///
    /// `feed.json` is required; `comments/` and `images/` are optional. Files
    /// whose names start with `.` and subdirectories are ignored. Every other
    /// file in `comments/` must be named `<UUID>.json`. Items need a UUID
    /// `id`; feed items a string `image`, optional string (or null)
    /// `description` and `location`; comments a string `message`,
    /// `created_at` and `author.username`. Other members are dropped.
    ///
    /// - Throws: ``LoadError`` naming the file at fault.
    static func load(directory: String) throws(LoadError) -> FeedServerFixtures {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) else {
            throw LoadError(kind: .notFound, path: directory, reason: "no such fixture directory")
        }
        guard isDirectory.boolValue else {
            throw LoadError(kind: .invalid, path: directory, reason: "not a directory")
        }
        func path(_ components: String...) -> String {
            ([directory.hasSuffix("/") ? String(directory.dropLast()) : directory] + components).joined(separator: "/")
        }

        var fixtures = FeedServerFixtures()
        let feedPath = path("feed.json")
        fixtures.feed = try items(inFile: feedPath).enumerated().map { (index, item) throws(LoadError) in
            try feedItem(item, at: Place(file: feedPath, index: index))
        }
        // One id twice made the pages after it cycle (an after_id is found
        // at its first place): found by the hunt.
        var seen: [UUID: Int] = [:]
        for (index, item) in fixtures.feed.enumerated() {
            guard let id = UUID(uuidString: item.id) else { continue }
            if let first = seen[id] {
                throw LoadError(kind: .invalid, path: feedPath, reason: "items[\(index)]: \"id\" is items[\(first)]'s too (each id once: the pages after it would cycle)")
            }
            seen[id] = index
        }

        for name in try files(in: path("comments")) {
            let file = path("comments", name)
            guard name.hasSuffix(".json"), let id = UUID(uuidString: String(name.dropLast(5))) else {
                throw LoadError(kind: .invalid, path: file, reason: "a comments file must be named <UUID>.json")
            }
            guard fixtures.comments[id] == nil else {
                throw LoadError(kind: .invalid, path: file, reason: "a second comments file for image \(id.uuidString)")
            }
            fixtures.comments[id] = try items(inFile: file).enumerated().map { (index, item) throws(LoadError) in
                try comment(item, at: Place(file: file, index: index))
            }
        }

        for name in try files(in: path("images")) {
            fixtures.images[name] = try [UInt8](contents(of: path("images", name)))
        }
        return fixtures
    }

    /// The names of the regular files in `directory` (sorted, no dotfiles), or
    /// none when it does not exist.
    private static func files(in directory: String) throws(LoadError) -> [String] {
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        guard fileManager.fileExists(atPath: directory, isDirectory: &isDirectory) else { return [] }
        guard isDirectory.boolValue else {
            throw LoadError(kind: .invalid, path: directory, reason: "not a directory")
        }
        let names: [String]
        do {
            names = try fileManager.contentsOfDirectory(atPath: directory)
        } catch {
            throw LoadError(kind: .unreadable, path: directory, reason: "cannot list: \(reason(of: error))")
        }
        return names.filter { name in
            var isDirectory: ObjCBool = false
            return !name.hasPrefix(".")
                && fileManager.fileExists(atPath: directory + "/" + name, isDirectory: &isDirectory)
                && !isDirectory.boolValue
        }.sorted()
    }

    private static func contents(of file: String) throws(LoadError) -> Data {
        guard FileManager.default.fileExists(atPath: file) else {
            throw LoadError(kind: .notFound, path: file, reason: "no such file")
        }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: file))
        } catch {
            throw LoadError(kind: .unreadable, path: file, reason: "cannot read: \(reason(of: error))")
        }
    }

    /// The `items` array of an API-form JSON file.
    private static func items(inFile file: String) throws(LoadError) -> [Any] {
        let data = try contents(of: file)
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data, options: [])
        } catch {
            throw LoadError(kind: .invalid, path: file, reason: "not valid JSON")
        }
        guard let payload = object as? [String: Any], let items = payload["items"] as? [Any] else {
            throw LoadError(kind: .invalid, path: file, reason: #"expected an object {"items":[...]}"#)
        }
        return items
    }

    /// Where an item sits, for error messages: `FILE: items[N]: reason`.
    private struct Place {
        var file: String
        var index: Int

        func invalid(_ reason: String) -> LoadError {
            LoadError(kind: .invalid, path: file, reason: "items[\(index)]: \(reason)")
        }

        func object(_ value: Any) throws(LoadError) -> [String: Any] {
            guard let object = value as? [String: Any] else { throw invalid("must be an object") }
            return object
        }

        func string(_ value: Any?, _ key: String) throws(LoadError) -> String {
            guard let string = value as? String else { throw invalid("\"\(key)\" must be a string") }
            return string
        }

        func optionalString(_ value: Any?, _ key: String) throws(LoadError) -> String? {
            if value == nil || value is NSNull { return nil }
            return try string(value, key)
        }

        func uuidString(_ value: Any?, _ key: String) throws(LoadError) -> String {
            guard let string = value as? String, UUID(uuidString: string) != nil else {
                throw invalid("\"\(key)\" must be a UUID string")
            }
            return string
        }
    }

    private static func feedItem(_ value: Any, at place: Place) throws(LoadError) -> FeedItem {
        let item = try place.object(value)
        return FeedItem(
            id: try place.uuidString(item["id"], "id"),
            description: try place.optionalString(item["description"], "description"),
            location: try place.optionalString(item["location"], "location"),
            image: try place.string(item["image"], "image")
        )
    }

    private static func comment(_ value: Any, at place: Place) throws(LoadError) -> Comment {
        let item = try place.object(value)
        guard let author = item["author"] as? [String: Any] else {
            throw place.invalid(#""author" must be an object {"username":...}"#)
        }
        return Comment(
            id: try place.uuidString(item["id"], "id"),
            message: try place.string(item["message"], "message"),
            createdAt: try place.string(item["created_at"], "created_at"),
            username: try place.string(author["username"], "author.username")
        )
    }

    private static func reason(of error: Error) -> String {
        if let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError,
           underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return error.localizedDescription
    }
}
