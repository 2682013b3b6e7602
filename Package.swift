// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "essential-feed",
    products: [
        .executable(name: "feed-fetch", targets: ["feed-fetch"]),
        .executable(name: "feed-map", targets: ["feed-map"]),
        .executable(name: "comments-map", targets: ["comments-map"]),
        .executable(name: "feed-serve", targets: ["feed-serve"]),
        .executable(name: "feed-paginate", targets: ["feed-paginate"]),
        .executable(name: "feed-cache", targets: ["feed-cache"]),
        .executable(name: "reldate", targets: ["reldate"]),
        .executable(name: "feed-view", targets: ["feed-view"]),
    ],
    targets: [
        // Pure core: models, mappers, endpoints, the JSON/NDJSON codec. No I/O.
        .target(name: "EssentialFeed"),
        // Pure presentation: localized strings and relative dates (ICU through Foundation).
        // Apart from the core so that tools that show nothing never load ICU.
        .target(name: "EssentialFeedPresentation", dependencies: ["EssentialFeed"]),
        // The system's libsqlite3 (Debian: libsqlite3-dev).
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        // Infrastructure without networking: cache stores, files, locks.
        .target(name: "EssentialFeedInfra", dependencies: ["EssentialFeed", "CSQLite"]),
        // Infrastructure with networking: the HTTP client on FoundationNetworking.
        // Kept apart so that tools that do not fetch never load Foundation's networking stack.
        .target(name: "EssentialFeedNetwork", dependencies: ["EssentialFeed"]),
        // Command-line plumbing shared by every tool: arguments, records in and out,
        // diagnostics, exit statuses, signals.
        .target(name: "FeedCLI", dependencies: ["EssentialFeed"]),
        // The local API server behind feed-serve.
        .target(name: "FeedServer", dependencies: ["EssentialFeed"]),

        .executableTarget(name: "feed-fetch", dependencies: ["EssentialFeed", "EssentialFeedNetwork", "FeedCLI"]),
        .executableTarget(name: "feed-map", dependencies: ["EssentialFeed", "FeedCLI"]),
        .executableTarget(name: "comments-map", dependencies: ["EssentialFeed", "FeedCLI"]),
        .executableTarget(name: "feed-cache", dependencies: ["EssentialFeed", "EssentialFeedInfra", "FeedCLI"]),
        .executableTarget(name: "reldate", dependencies: ["EssentialFeed", "EssentialFeedPresentation", "FeedCLI"]),
        .executableTarget(name: "feed-view", dependencies: ["EssentialFeed", "EssentialFeedPresentation", "FeedCLI"]),
        .executableTarget(name: "feed-paginate", dependencies: ["EssentialFeed", "FeedCLI"]),
        .executableTarget(name: "feed-serve", dependencies: ["FeedServer", "FeedCLI"]),

        .testTarget(name: "EssentialFeedTests", dependencies: ["EssentialFeed"]),
        .testTarget(name: "EssentialFeedCacheTests", dependencies: ["EssentialFeed"]),
        .testTarget(name: "EssentialFeedPresentationTests", dependencies: ["EssentialFeed", "EssentialFeedPresentation"]),
        .testTarget(name: "EssentialFeedInfraTests", dependencies: ["EssentialFeedInfra", "EssentialFeedNetwork", "FeedServer"]),
        .testTarget(name: "FeedServerTests", dependencies: ["FeedServer"]),
        .testTarget(
            name: "ToolTests",
            dependencies: ["feed-fetch", "feed-map", "comments-map", "feed-serve", "feed-paginate", "feed-cache", "reldate", "feed-view"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
