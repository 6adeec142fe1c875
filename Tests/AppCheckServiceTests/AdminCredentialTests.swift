@testable import AppCheckService
import Crypto
import GRPC
import Observability
import Testing

@Suite("Admin credential of the KeyService")
struct AdminCredentialTests {
    let credential = AdminCredential(tokenHashes: [SHA256.hash(Array("s3cret-admin-token".utf8))])

    func context(_ authorization: String?) -> RPCContext {
        RPCContext(requestID: "t", deadlineNanos: nil, logger: Logger(label: "test"), authorization: authorization)
    }

    @Test("accepts the bearer token whose SHA-256 is configured")
    func accepts() throws {
        try credential.check(context("Bearer s3cret-admin-token"))
    }

    @Test("asks for a token when there is none, and refuses a wrong one")
    func refuses() {
        #expect(throws: GRPCStatus.self) { try credential.check(context(nil)) }
        do {
            try credential.check(context(nil))
        } catch {
            #expect(error.code == .unauthenticated)
        }
        do {
            try credential.check(context("Bearer s3cret-admin-tokeN"))
            Issue.record("a wrong token was accepted")
        } catch {
            #expect(error.code == .permissionDenied)
        }
        do {
            try credential.check(context("Basic czNjcmV0"))
            Issue.record("a non-bearer credential was accepted")
        } catch {
            #expect(error.code == .unauthenticated)
        }
    }

    @Test("is disabled when no token is configured, so apps can never call it")
    func disabled() {
        do {
            try AdminCredential(tokenHashes: []).check(context("Bearer anything"))
            Issue.record("a disabled KeyService answered")
        } catch {
            #expect(error.code == .failedPrecondition)
        }
    }
}
