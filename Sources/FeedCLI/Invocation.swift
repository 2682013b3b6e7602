import EssentialFeed

/// How the process was called: the arguments after the tool's name. The
/// multi-call executable, called as `essential-feed TOOL ARGS`, sets them
/// to ARGS before it runs the tool (at start-up, before any thread).
public enum Invocation {
    nonisolated(unsafe) public static var arguments = Array(CommandLine.arguments.dropFirst())
}

/// The version every tool reports.
public let toolkitVersion = "0.1.0"
