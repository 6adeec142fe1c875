/// Namespace of the AppCheckMessages module; see ../../README.md for its place in attestd.
public enum AppCheckMessagesModule {}
