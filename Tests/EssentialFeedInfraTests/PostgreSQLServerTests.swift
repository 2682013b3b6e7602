import XCTest

/// The tests' own PostgreSQL server starts, answers on its socket and goes.
final class PostgreSQLServerTests: XCTestCase {
    func test_server_startsAnswersAndStops() throws {
        let server = try PostgreSQLServer.start()
        defer { server.stop() }

        XCTAssertEqual(try server.psql("SELECT 1 + 1"), "2\n")
        XCTAssertEqual(try server.psql("SHOW fsync"), "off\n")
        XCTAssertEqual(try server.psql("SELECT current_user"), "feed\n")
    }
}
