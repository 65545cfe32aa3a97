/// Which signals a subscription receives: the match rule given to `org.freedesktop.DBus.AddMatch`
/// (`type='signal',sender='…',path='…',interface='…',member='…',arg0='…'`). Unset fields match anything.
///
/// The same rule filters locally as well, because one connection carries the signals of every subscription. A
/// well-known `sender` (e.g. `org.freedesktop.portal.Desktop`) is resolved to its owner's unique name and followed
/// through `NameOwnerChanged`, as the bus does.
public struct DBusMatchRule: Sendable, Hashable, CustomStringConvertible {
    /// Unique (`:1.42`) or well-known bus name of the sender.
    public var sender: String?
    /// Exact object path of the emitter.
    public var path: DBusObjectPath?
    /// The emitter's path is this path or below it (`path_namespace`).
    public var pathNamespace: DBusObjectPath?
    public var interface: String?
    public var member: String?
    /// `argN='value'`: the N-th argument (0...63) is a string equal to `value`.
    public var arguments: [Int: String]

    public init(sender: String? = nil, path: DBusObjectPath? = nil, pathNamespace: DBusObjectPath? = nil,
                interface: String? = nil, member: String? = nil, arguments: [Int: String] = [:]) {
        self.sender = sender
        self.path = path
        self.pathNamespace = pathNamespace
        self.interface = interface
        self.member = member
        self.arguments = arguments
    }

    /// The rule for `org.freedesktop.DBus.NameOwnerChanged` about one name (`arg0='name'`).
    public static func nameOwnerChanged(_ name: String) -> DBusMatchRule {
        DBusMatchRule(sender: DBusConnection.busName, path: DBusConnection.busPath,
                      interface: DBusConnection.busInterface, member: "NameOwnerChanged", arguments: [0: name])
    }

    /// The rule text sent to `AddMatch`/`RemoveMatch`. Values are quoted with `'`; a `'` inside a value is
    /// written `'\''` as the specification requires.
    public var description: String {
        var parts = ["type='signal'"]
        func add(_ key: String, _ value: String?) {
            guard let value else { return }
            let quoted = value.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''")
            parts.append("\(key)='\(quoted)'")
        }
        add("sender", sender)
        add("path", path?.rawValue)
        add("path_namespace", pathNamespace?.rawValue)
        add("interface", interface)
        add("member", member)
        for (n, value) in arguments.sorted(by: { $0.key < $1.key }) { add("arg\(n)", value) }
        return parts.joined(separator: ",")
    }

    /// Checks names, argument numbers and the 1024-byte limit of the bus.
    func validate() throws(DBusError) {
        if let sender { try DBusNames.validateBusName(sender) }
        if let interface { try DBusNames.validateInterface(interface) }
        if let member { try DBusNames.validateMember(member) }
        if path != nil && pathNamespace != nil {
            throw .invalidArgument("match rule: path and path_namespace cannot both be set")
        }
        for (n, value) in arguments {
            guard (0...63).contains(n) else { throw .invalidArgument("match rule: arg\(n) is outside arg0...arg63") }
            guard !value.utf8.contains(0) else { throw .invalidArgument("match rule: arg\(n) contains a NUL character") }
        }
        guard description.utf8.count <= 1024 else {
            throw .invalidArgument("match rule longer than 1024 bytes: \(description.prefix(80))...")
        }
    }

    /// The local half of matching, for a received signal. `senderOwner` is the unique name a well-known
    /// `sender` currently resolves to (nil while unknown or unowned).
    func matches(sender messageSender: String?, path messagePath: DBusObjectPath?, interface messageInterface: String?,
                 member messageMember: String?, senderOwner: String?, arguments body: () -> [DBusValue]?) -> Bool {
        if let sender {
            let expected = DBusMatchRule.isUniqueOrBus(sender) ? sender : senderOwner
            guard let expected, messageSender == expected else { return false }
        }
        if let path, messagePath != path { return false }
        if let pathNamespace {
            guard let messagePath, messagePath.isDescendant(ofOrEqualTo: pathNamespace) else { return false }
        }
        if let interface, messageInterface != interface { return false }
        if let member, messageMember != member { return false }
        if !arguments.isEmpty {
            guard let values = body() else { return false }
            for (n, expected) in arguments {
                guard values.indices.contains(n) else { return false }
                switch values[n] {
                case .string(let s) where s == expected: continue
                default: return false
                }
            }
        }
        return true
    }

    /// Unique names (`:1.42`) and the bus itself need no resolution.
    static func isUniqueOrBus(_ name: String) -> Bool {
        name.hasPrefix(":") || name == DBusConnection.busName
    }
}
