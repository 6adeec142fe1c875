import Config
import HTTP

extension HTTPServerConfiguration {
    /// Takes the connection-level limits of the `admission` section.
    mutating func apply(_ admission: Configuration.Admission) {
        maxConnectionsPerAddress = admission.maxConnectionsPerAddress
        handshakeTimeoutSeconds = admission.handshakeTimeoutSeconds
        writeStallTimeoutSeconds = admission.writeStallTimeoutSeconds
        requestTimeoutSeconds = admission.requestTimeoutSeconds
        responseDrainTimeoutSeconds = admission.responseDrainTimeoutSeconds
        maxHeaderFields = admission.maxHeaderFields
        http2FrameBurst = admission.http2FrameBurst
        http2FrameRefillPerSecond = admission.http2FramesPerSecond
    }
}
