/// Namespace of the HTTP module; see ../../README.md for its place in attestd.
public enum HTTPModule {}
