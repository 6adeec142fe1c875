/// Which of Apple's two DeviceCheck / App Attest environments a host, key or token belongs to.
public enum AppleEnvironment: String, Sendable, Hashable, CaseIterable {
    case development
    case production
}
