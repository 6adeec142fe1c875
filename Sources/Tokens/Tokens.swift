/// Namespace of the Tokens module; see ../../README.md for its place in attestd.
public enum TokensModule {}
