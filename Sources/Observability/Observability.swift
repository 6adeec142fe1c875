/// Namespace of the Observability module; see ../../README.md for its place in attestd.
public enum ObservabilityModule {}
