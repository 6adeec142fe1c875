/// Namespace of the AppAttestSimulator module; see ../../README.md for its place in attestd.
public enum AppAttestSimulatorModule {}
