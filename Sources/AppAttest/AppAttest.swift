/// Namespace of the AppAttest module; see ../../README.md for its place in attestd.
public enum AppAttestModule {}
