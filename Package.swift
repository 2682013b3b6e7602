// swift-tools-version:6.0
import PackageDescription

// Start-up. Most of a dynamically linked Swift tool's start-up is the
// dynamic loader binding symbols across the runtime's libraries (callgrind:
// ~75% of a 1-record run). Release builds therefore link the filters as
// static executables (glibc included), and feed-fetch, which needs the
// system's libcurl for https, with the Swift libraries static. lld links
// them (the toolchain's; gold warns about glibc symbols static Foundation
// references). Debug builds, which the tests link, stay dynamic; the test
// command runs the tool tests again against the release executables as
// scripts/install installs them.
let swiftStatic = ["-lFoundationEssentials", "-l_FoundationCShims", "-l_FoundationCollections", "-lswiftSynchronization"]
let foundationStatic = ["-lFoundation", "-lFoundationInternationalization", "-l_FoundationICU", "-lCoreFoundation", "-lswiftDispatch", "-ldispatch", "-lBlocksRuntime"]
func releaseLinking(_ flags: [String]) -> [LinkerSetting] {
    [.unsafeFlags(["-use-ld=lld"] + flags, .when(platforms: [.linux], configuration: .release))]
}
/// A filter on the core alone: one static executable.
let staticFilter = releaseLinking(["-static-executable"] + swiftStatic)
/// A filter that formats for people (ICU through Foundation): static too.
let staticFoundationFilter = releaseLinking(["-static-executable"] + swiftStatic + foundationStatic)
/// Where the linker finds Sources/StaticRuntime's scripts before the
/// system's libraries (clang puts its own -L paths after them).
let staticRuntime = ["-Xclang-linker", "-L" + String(#filePath.dropLast("Package.swift".count)) + "Sources/StaticRuntime"]
/// feed-fetch: the Swift libraries static, the system's libcurl (https,
/// called directly: no Foundation, no ICU) shared. The C++ runtime and the
/// unwinder the Swift runtime needs are linked static too (StaticRuntime's
/// linker scripts): loading libstdc++ and libgcc_s took 1.1 ms of a 3.6 ms
/// start of a Swift program that prints one line.
let staticSwiftNetworking = releaseLinking(["-static-stdlib"] + swiftStatic + staticRuntime)

/// Release builds of the modules on the records' hot paths (the core's
/// codec and mappers, the stores, the HTTP client, the command-line
/// plumbing) leave out the run-time checks of exclusive access that Swift
/// makes on a class's stored properties and on captured variables: about a
/// dozen calls into the runtime for every record a save reads (the 1M-item
/// save took 0.88x and the whole fetch | map | save 0.91x the time without
/// them, 12 and 20 alternating pairs). Debug builds keep every check, so the
/// test suite (and the address-sanitizer build, also a debug build) still
/// traps on any overlapping access it reaches.
let hotPath: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

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
        .executable(name: "essential-feed", targets: ["essential-feed"]),
        .executable(name: "feed-cache-postgresql", targets: ["feed-cache-postgresql"]),
        .executable(name: "essential-feed-net", targets: ["essential-feed-net"]),
    ],
    targets: [
        // Pure core: models, mappers, endpoints, the JSON/NDJSON codec. No I/O.
        .target(name: "EssentialFeed", swiftSettings: hotPath),
        // Pure presentation: localized strings and relative dates (ICU through Foundation).
        // Apart from the core so that tools that show nothing never load ICU.
        .target(name: "EssentialFeedPresentation", dependencies: ["EssentialFeed"]),
        // The system's libsqlite3 (Debian: libsqlite3-dev).
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        // Infrastructure without networking: cache stores, files, locks.
        .target(name: "EssentialFeedInfra", dependencies: ["EssentialFeed", "CSQLite"], swiftSettings: hotPath),
        // The system's libpq (Debian: libpq-dev), for the PostgreSQL store.
        .systemLibrary(name: "CLibpq", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // The PostgreSQL store, through libpq. Apart from the other stores so
        // that only the executable that opens a PostgreSQL store loads libpq.
        .target(name: "EssentialFeedPostgreSQL", dependencies: ["EssentialFeed", "EssentialFeedInfra", "CLibpq"]),
        // Infrastructure with networking: the system's libcurl, called directly,
        // for every URL. Kept apart so that tools that do not fetch never load libcurl.
        .target(name: "EssentialFeedNetwork", dependencies: ["EssentialFeed", "CCurl", "CZlib"], swiftSettings: hotPath),
        // The system's libcurl (Debian: libcurl4-openssl-dev).
        .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // The system's zlib (Debian: zlib1g-dev), to decode gzip and deflate bodies over http.
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        // Command-line plumbing shared by every tool: arguments, records in and out,
        // diagnostics, exit statuses, signals.
        .target(name: "FeedCLI", dependencies: ["EssentialFeed", "Sandbox", "CSignalFD"], swiftSettings: hotPath),
        // signalfd(2), for the thread that takes the signals (a header: nothing to link).
        .systemLibrary(name: "CSignalFD"),
        // Least privilege: a tool confines itself to what its job needs
        // (Landlock for files, seccomp for system calls), through the kernel's
        // calls declared in CSandbox (a header: nothing to link).
        .target(name: "Sandbox", dependencies: ["CSandbox"]),
        .systemLibrary(name: "CSandbox"),
        // The local API server behind feed-serve.
        .target(name: "FeedServer", dependencies: ["EssentialFeed"]),

        .target(name: "FeedFetchTool", dependencies: ["EssentialFeed", "EssentialFeedNetwork", "FeedCLI", "Sandbox"]),
        .executableTarget(name: "feed-fetch", dependencies: ["FeedFetchTool"], linkerSettings: staticSwiftNetworking),
        // Each tool's composition root, a `main()` in a module of its own, run
        // by the tool's executable (tests, debug builds) and by the multi-call
        // executable that scripts/install installs (one copy of the runtime).
        .target(name: "FeedMapTool", dependencies: ["EssentialFeed", "FeedCLI"]),
        .target(name: "CommentsMapTool", dependencies: ["EssentialFeed", "FeedCLI"]),
        .target(name: "FeedCacheTool", dependencies: ["EssentialFeed", "EssentialFeedInfra", "FeedCLI", "Sandbox"], swiftSettings: hotPath),
        .target(name: "ReldateTool", dependencies: ["EssentialFeed", "EssentialFeedPresentation", "FeedCLI", "Sandbox"]),
        .target(name: "FeedViewTool", dependencies: ["EssentialFeed", "EssentialFeedPresentation", "FeedCLI", "Sandbox"]),
        .target(name: "FeedPaginateTool", dependencies: ["EssentialFeed", "FeedCLI", "Sandbox"]),
        .target(name: "FeedServeTool", dependencies: ["FeedServer", "FeedCLI", "Sandbox"]),

        .executableTarget(name: "feed-map", dependencies: ["FeedMapTool"], linkerSettings: staticFilter),
        .executableTarget(name: "comments-map", dependencies: ["CommentsMapTool"], linkerSettings: staticFilter),
        .executableTarget(name: "feed-cache", dependencies: ["FeedCacheTool"], linkerSettings: staticFilter),
        .executableTarget(name: "reldate", dependencies: ["ReldateTool"], linkerSettings: staticFoundationFilter),
        .executableTarget(name: "feed-view", dependencies: ["FeedViewTool"], linkerSettings: staticFoundationFilter),
        // feed-cache for a PostgreSQL store: the same tool with libpq, which
        // feed-cache (static, libpq-free) runs in its place when the store is
        // a postgresql:// or postgres:// URI, as git runs git-remote-https.
        // Linked as feed-fetch: the Swift libraries static, libpq shared.
        .executableTarget(name: "feed-cache-postgresql", dependencies: ["FeedCacheTool", "EssentialFeedPostgreSQL"], linkerSettings: staticSwiftNetworking),
        .executableTarget(name: "feed-paginate", dependencies: ["FeedPaginateTool"], linkerSettings: staticFilter),
        .executableTarget(name: "feed-serve", dependencies: ["FeedServeTool"]),
        // Every tool but feed-fetch in one static executable, run under each
        // tool's name (a link per name, as busybox): what scripts/install
        // installs. feed-fetch stays apart: it links the system's libcurl.
        .executableTarget(
            name: "essential-feed",
            dependencies: ["FeedCLI", "FeedMapTool", "CommentsMapTool", "FeedCacheTool", "ReldateTool", "FeedViewTool", "FeedPaginateTool", "FeedServeTool"],
            linkerSettings: staticFoundationFilter
        ),
        // feed-fetch and feed-cache-postgresql in one executable, run under
        // each name (links), for one copy of the Swift libraries between the
        // two tools that link shared system libraries: what scripts/install
        // installs for them (14 MB less than both apart).
        .executableTarget(
            name: "essential-feed-net",
            dependencies: ["FeedFetchTool", "FeedCacheTool", "EssentialFeedPostgreSQL", "FeedCLI"],
            linkerSettings: staticSwiftNetworking
        ),

        .testTarget(name: "EssentialFeedTests", dependencies: ["EssentialFeed"]),
        .testTarget(name: "EssentialFeedCacheTests", dependencies: ["EssentialFeed"]),
        .testTarget(name: "EssentialFeedPresentationTests", dependencies: ["EssentialFeed", "EssentialFeedPresentation"]),
        .testTarget(name: "EssentialFeedInfraTests", dependencies: ["EssentialFeedInfra", "EssentialFeedNetwork", "EssentialFeedPostgreSQL", "FeedServer", "CZlib"]),
        .testTarget(name: "FeedServerTests", dependencies: ["FeedServer"]),
        .testTarget(name: "FeedCLITests", dependencies: ["FeedCLI", "EssentialFeed"]),
        .testTarget(
            name: "ToolTests",
            dependencies: ["feed-fetch", "feed-map", "comments-map", "feed-serve", "feed-paginate", "feed-cache", "feed-cache-postgresql", "reldate", "feed-view"],
            exclude: ["Golden"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
