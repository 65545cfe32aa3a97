/// One interface of an exported object: its methods, read-only properties and (for introspection) signals.
/// Export it with ``DBusConnection/export(_:at:)`` or ``DBusConnection/exportFallback(_:under:)``.
///
/// ```swift
/// DBusInterface("org.freedesktop.impl.portal.ScreenCast",
///     methods: [.deferred("CreateSession", in: "oosa{sv}", out: "ua{sv}") { call in ... call.reply(...) later }],
///     properties: [.constant("version", .uint32(4))])
/// ```
public struct DBusInterface: Sendable {
    public let name: String
    public var methods: [DBusMethod]
    public var properties: [DBusProperty]
    public var signals: [DBusSignalDeclaration]

    public init(_ name: String, methods: [DBusMethod] = [], properties: [DBusProperty] = [],
                signals: [DBusSignalDeclaration] = []) {
        self.name = name
        self.methods = methods
        self.properties = properties
        self.signals = signals
    }

    /// Checks every name and signature (at export time, so mistakes surface as errors, not aborts).
    func validate() throws(DBusError) {
        try DBusNames.validateInterface(name)
        var seen: Set<String> = []
        for method in methods {
            try DBusNames.validateMember(method.name)
            guard seen.insert(method.name).inserted else {
                throw .invalidArgument("\(name): method \(method.name) is declared twice")
            }
            if let s = method.inSignature { _ = try DBusSignature(s) }
            if let s = method.outSignature { _ = try DBusSignature(s) }
        }
        for property in properties {
            try DBusNames.validateMember(property.name)
            _ = try DBusType(parsing: property.type.signature)
        }
        for signal in signals {
            try DBusNames.validateMember(signal.name)
            _ = try DBusSignature(signal.signature)
        }
    }
}

/// A method of an exported interface, with its handler. Handlers run on the connection's queue: keep them short
/// and hand longer work to a task (or use ``async(_:in:out:_:)``).
public struct DBusMethod: Sendable {
    public let name: String
    /// The body signature callers must send, e.g. `oosa{sv}`; a call with another one gets
    /// `org.freedesktop.DBus.Error.InvalidArgs` without reaching the handler. `nil` accepts any body.
    public let inSignature: String?
    /// The body signature of the reply; ``DBusMethodCall/reply(_:)`` refuses another one. `nil`: not checked.
    public let outSignature: String?
    let handler: Handler

    enum Handler: Sendable {
        case replying(@Sendable (DBusMethodCall) throws(DBusError) -> [DBusValue])
        case deferred(@Sendable (DBusMethodCall) -> Void)
        case async(@Sendable (DBusMethodCall) async throws(DBusError) -> [DBusValue])
    }

    /// Replies at once with the returned body; a thrown ``DBusError/remote(name:message:)`` becomes that error
    /// reply, ``DBusError/malformed(path:reason:)`` becomes `org.freedesktop.DBus.Error.InvalidArgs`, anything else
    /// `org.freedesktop.DBus.Error.Failed`.
    public static func replying(_ name: String, in inSignature: String? = nil, out outSignature: String? = nil,
                                _ handler: @escaping @Sendable (DBusMethodCall) throws(DBusError) -> [DBusValue]) -> DBusMethod {
        DBusMethod(name: name, inSignature: inSignature, outSignature: outSignature, handler: .replying(handler))
    }

    /// The handler owns the reply: it may answer later from any thread through the ``DBusMethodCall``, or never
    /// (the caller then times out). Dropping the call without replying sends nothing.
    public static func deferred(_ name: String, in inSignature: String? = nil, out outSignature: String? = nil,
                                _ handler: @escaping @Sendable (DBusMethodCall) -> Void) -> DBusMethod {
        DBusMethod(name: name, inSignature: inSignature, outSignature: outSignature, handler: .deferred(handler))
    }

    /// Runs the handler in a new task and replies with its result (errors mapped as in ``replying(_:in:out:_:)``).
    public static func async(_ name: String, in inSignature: String? = nil, out outSignature: String? = nil,
                             _ handler: @escaping @Sendable (DBusMethodCall) async throws(DBusError) -> [DBusValue]) -> DBusMethod {
        DBusMethod(name: name, inSignature: inSignature, outSignature: outSignature, handler: .async(handler))
    }
}

/// A read-only property, served by `org.freedesktop.DBus.Properties.Get` and `GetAll`.
public struct DBusProperty: Sendable {
    public let name: String
    public let type: DBusType
    let get: @Sendable () throws(DBusError) -> DBusValue

    /// `get` runs on the connection's queue at every Get/GetAll; it must return a value of `type`.
    public init(_ name: String, type: DBusType, get: @escaping @Sendable () throws(DBusError) -> DBusValue) {
        self.name = name
        self.type = type
        self.get = get
    }

    /// A property whose value never changes (e.g. a portal's `version`).
    public static func constant(_ name: String, _ value: DBusValue) -> DBusProperty {
        DBusProperty(name, type: value.type) { value }
    }
}

/// A signal an interface emits, listed in its introspection data.
public struct DBusSignalDeclaration: Sendable {
    public let name: String
    /// The body signature, e.g. `a{sv}`.
    public let signature: String

    public init(_ name: String, signature: String = "") {
        self.name = name
        self.signature = signature
    }
}
