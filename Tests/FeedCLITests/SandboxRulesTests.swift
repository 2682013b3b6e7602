import Foundation
import Sandbox
import XCTest

/// The files a folder of certificate links leads to (`linkedFiles`), on
/// real folders and links, laid out as Debian's /etc/ssl/certs is: hash
/// links to names in the folder, which lead to files kept elsewhere.
final class SandboxRulesTests: XCTestCase {
    private var root = ""

    override func setUpWithError() throws {
        root = try XCTUnwrap(FileManager.default.temporaryDirectory.resolvingSymlinksInPath().path) + "/sandbox-rules-\(UUID().uuidString)"
        for folder in ["certs", "kept/mozilla", "elsewhere", "covered", "through"] {
            try FileManager.default.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true)
        }
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: root)
    }

    private func file(_ path: String) throws {
        try Data("x".utf8).write(to: URL(fileURLWithPath: root + "/" + path))
    }

    private func link(_ path: String, to target: String) throws {
        try FileManager.default.createSymbolicLink(atPath: root + "/" + path, withDestinationPath: target)
    }

    func test_linkedFiles_areWhatEveryLinkLeadsTo_onceEach_outsideTheReadableFolders() throws {
        try file("kept/mozilla/A.crt")
        try file("kept/mozilla/B.crt")
        try file("elsewhere/C.crt")
        try file("covered/D.crt")
        try file("certs/bundle.crt")
        // Names leading elsewhere (absolute, relative), and hashes leading to the names.
        try link("certs/A.pem", to: root + "/kept/mozilla/A.crt")
        try link("certs/B.pem", to: "../kept/mozilla/B.crt")
        try link("certs/1111.0", to: "A.pem")
        try link("certs/2222.0", to: "B.pem")
        // A link to a link kept elsewhere: the file at the end of both.
        try link("through/C.crt", to: root + "/elsewhere/C.crt")
        try link("certs/C.pem", to: root + "/through/C.crt")
        // Into a folder reached through a link: the folder as it lies.
        try link("via", to: root + "/kept")
        try link("certs/E.pem", to: root + "/via/mozilla/A.crt")
        // Into a folder already readable, and a file of the folder itself.
        try link("certs/D.pem", to: root + "/covered/D.crt")
        try link("certs/3333.0", to: "bundle.crt")
        // A link that leads nowhere: the path it names (nothing to grant).
        try link("certs/gone.pem", to: root + "/kept/gone.crt")
        // Links to folders: what they lead to, resolved whole.
        try link("certs/up", to: "../kept/mozilla/..")
        try link("certs/parent", to: "..")
        try link("certs/slash", to: root + "/elsewhere/")

        let files = SandboxRules.linkedFiles(in: root + "/certs", beyond: [root + "/certs", root + "/covered"])

        XCTAssertEqual(files, [root, root + "/elsewhere", root + "/elsewhere/C.crt", root + "/kept", root + "/kept/gone.crt",
                               root + "/kept/mozilla/A.crt", root + "/kept/mozilla/B.crt"])
    }

    func test_linkedFiles_ofAFolderNotReadable_includeItsOwnFilesLinkedTo() throws {
        try file("certs/bundle.crt")
        try link("certs/3333.0", to: "bundle.crt")

        XCTAssertEqual(SandboxRules.linkedFiles(in: root + "/certs", beyond: []), [root + "/certs/bundle.crt"])
    }
}
