import Foundation
import XCTest

/// A real nginx (Debian's package) on 127.0.0.1, serving the files of a
/// folder, configured by the test (gzip on for JSON), logging each
/// request's status, bytes sent, User-Agent and Accept-Encoding; stopped at
/// the end of the test. scripts/test installs nginx when it is missing and
/// it runs as root; a test without it is skipped.
final class Nginx: @unchecked Sendable {
    private(set) var process = Process()
    private(set) var port = 0
    let directory: String
    /// The files served.
    var root: String { directory + "/www" }
    var base: String { "http://127.0.0.1:\(port)" }
    /// With `tls`: the same files over https with HTTP/2 on a second port,
    /// under a certificate for 127.0.0.1 made here (trusted through
    /// SSL_CERT_FILE=`certificate`).
    private(set) var tlsPort = 0
    var tlsBase: String { "https://127.0.0.1:\(tlsPort)" }
    var certificate: String { directory + "/cert.pem" }

    /// `locations`: extra `location` blocks of the server (of both, with `tls`).
    init(test: XCTestCase, locations: String = "", tls: Bool = false) throws {
        guard let binary = ["/usr/sbin/nginx", "/usr/bin/nginx"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw XCTSkip("needs nginx (Debian: nginx-light; scripts/test installs it as root)")
        }
        directory = temporaryDirectory(test)
        try FileManager.default.createDirectory(atPath: directory + "/www", withIntermediateDirectories: true)
        let d = directory
        if tls {
            guard FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") else { throw XCTSkip("needs openssl") }
            let make = sh(#"openssl req -x509 -newkey rsa:2048 -nodes -keyout "$D/key.pem" -out "$D/cert.pem" -days 2 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 2> /dev/null"#, environment: ["D": d])
            guard make.status == 0 else { throw NSError(domain: "nginx", code: 2, userInfo: [NSLocalizedDescriptionKey: "openssl could not make a certificate"]) }
        }
        // A port found free may be taken before nginx binds it (by another
        // test run's server or connection: the tool tests run three at
        // once): nginx then stops, and starts again on other ports. It is
        // started once its pid file is written, after it has bound them (a
        // connection alone could reach another run's server).
        for _ in 1...5 {
            if try start(binary, locations: locations, tls: tls, test: test) { return }
        }
        let log = (try? String(contentsOfFile: d + "/error.log", encoding: .utf8)) ?? ""
        throw NSError(domain: "nginx", code: 1, userInfo: [NSLocalizedDescriptionKey: "nginx did not start: \(log)"])
    }

    /// Starts nginx on ports found free; whether it started (false: it
    /// stopped, its ports taken meanwhile).
    private func start(_ binary: String, locations: String, tls: Bool, test: XCTestCase) throws -> Bool {
        let d = directory
        port = try Self.freePort()
        var tlsServer = ""
        if tls {
            tlsPort = try Self.freePort()
            tlsServer = """
            server {
                    listen 127.0.0.1:\(tlsPort) ssl http2;
                    ssl_certificate \(d)/cert.pem;
                    ssl_certificate_key \(d)/key.pem;
                    root \(d)/www;
                    access_log \(d)/access.log shape;
                    \(locations)
                }
            """
        }
        let conf = """
        daemon off;
        master_process off;
        pid \(d)/nginx.pid;
        error_log \(d)/error.log;
        events {}
        http {
            log_format shape '$status $bytes_sent $server_protocol "$http_user_agent" "$http_accept_encoding" "$request_uri"';
            types { application/json json; }
            default_type application/octet-stream;
            gzip on;
            gzip_types application/json;
            gzip_min_length 0;
            client_body_temp_path \(d); proxy_temp_path \(d); fastcgi_temp_path \(d); uwsgi_temp_path \(d); scgi_temp_path \(d);
            server {
                listen 127.0.0.1:\(port);
                root \(d)/www;
                access_log \(d)/access.log shape;
                location = /.log-barrier { access_log \(d)/barrier.log shape; return 204; }
                \(locations)
            }
            \(tlsServer)
        }
        """
        try conf.write(toFile: d + "/nginx.conf", atomically: true, encoding: .utf8)
        unlink(d + "/nginx.pid")
        let process = Process()
        self.process = process
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["-c", d + "/nginx.conf", "-p", d]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        test.addTeardownBlock {
            // (An attempt's nginx that stopped is reaped: its pid may be another process's by now.)
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
        // nginx retries a port in use for 2.5 s before it stops.
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: d + "/nginx.pid") || !Self.accepts(port) || (tls && !Self.accepts(tlsPort)) {
            guard process.isRunning else {
                process.waitUntilExit()
                return false
            }
            guard Date() < deadline else {
                let log = (try? String(contentsOfFile: d + "/error.log", encoding: .utf8)) ?? ""
                throw NSError(domain: "nginx", code: 1, userInfo: [NSLocalizedDescriptionKey: "nginx did not start: \(log)"])
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return true
    }

    /// The access log's lines: `STATUS BYTES_SENT PROTOCOL "UA" "ACCEPT_ENCODING" "URI"`,
    /// every request answered so far included.
    var accessLog: [String] {
        awaitLogging()
        return lines(of: "access.log")
    }

    private func lines(of file: String) -> [String] {
        ((try? String(contentsOfFile: directory + "/" + file, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// nginx writes a request's line after its response has gone out, so a
    /// client that has read its response and exited can be ahead of the log
    /// (a check read ["200"] where the 304 had been answered). nginx runs
    /// here as one process that handles one event at a time: once a later
    /// request, /.log-barrier (logged in a file of its own), is logged,
    /// every request answered before it is.
    private func awaitLogging() {
        let before = lines(of: "barrier.log").count
        guard let fd = Self.connection(to: port) else { return }
        defer { close(fd) }
        let request = Array("GET /.log-barrier HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        guard send(fd, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else { return }
        var buffer = [UInt8](repeating: 0, count: 512)
        while recv(fd, &buffer, buffer.count, 0) > 0 {}
        let deadline = Date().addingTimeInterval(10)
        while lines(of: "barrier.log").count == before, Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
    }

    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func accepts(_ port: Int) -> Bool {
        guard let fd = connection(to: port) else { return false }
        close(fd)
        return true
    }

    /// A socket connected to 127.0.0.1:`port`, or nil.
    private static func connection(to port: Int) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        if connected { return fd }
        close(fd)
        return nil
    }
}
