/// Where inside a message body a value sits, for error messages: `arg 1 / key 'streams' / [0] / field 1`.
///
/// Decoders build it from the inside out: each container that catches a ``DBusError/malformed(path:reason:)``
/// from one of its children rethrows it with its own component in front (see ``DBusError/prefixed(_:)``).
public struct DBusValuePath: Sendable, Hashable, CustomStringConvertible, ExpressibleByArrayLiteral {
    /// One step into a message body.
    public enum Component: Sendable, Hashable, CustomStringConvertible {
        /// The n-th top-level argument of a message body (0-based).
        case argument(Int)
        /// The entry of a dictionary (`a{..}`) with this key, rendered as text.
        case key(String)
        /// The n-th element of an array (`a..`), 0-based.
        case index(Int)
        /// The n-th field of a struct (`(..)`), 0-based.
        case field(Int)
        /// The contents of a variant (`v`).
        case variant

        public var description: String {
            switch self {
            case .argument(let n): "arg \(n)"
            case .key(let key): "key '\(key)'"
            case .index(let n): "[\(n)]"
            case .field(let n): "field \(n)"
            case .variant: "variant"
            }
        }
    }

    public var components: [Component]

    public init(_ components: [Component] = []) { self.components = components }
    public init(arrayLiteral elements: Component...) { self.components = elements }

    /// This path with `component` in front of it.
    public func prepending(_ component: Component) -> DBusValuePath {
        DBusValuePath([component] + components)
    }

    /// This path with `component` appended.
    public func appending(_ component: Component) -> DBusValuePath {
        DBusValuePath(components + [component])
    }

    public var isEmpty: Bool { components.isEmpty }

    public var description: String {
        components.isEmpty ? "message body" : components.map(\.description).joined(separator: " / ")
    }
}
