/// Namespace of the AppCheckService module; see ../../README.md for its place in attestd.
public enum AppCheckServiceModule {}
