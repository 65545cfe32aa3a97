import CDBus

/// Method-call routing to exported objects, with the standard `org.freedesktop.DBus.Properties` and
/// `org.freedesktop.DBus.Introspectable` interfaces. (`org.freedesktop.DBus.Peer` is answered by libdbus itself.)
extension DBusConnectionEngine {
    static let propertiesInterface = "org.freedesktop.DBus.Properties"
    static let introspectableInterface = "org.freedesktop.DBus.Introspectable"

    /// The object at `path`, else the fallback with the longest prefix of `path`.
    func object(at path: DBusObjectPath) -> ExportedObject? {
        if let object = objects[path] { return object }
        return fallbacks.filter { path.isDescendant(ofOrEqualTo: $0.key) }
            .max { $0.key.rawValue.count < $1.key.rawValue.count }?.value
    }

    func routeMethodCall(_ message: DBusMessage) -> DBusHandlerResult {
        guard let path = message.path, let member = message.member else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
        let interface = message.interface
        let object = object(at: path)
        if interface == Self.introspectableInterface || (interface == nil && member == "Introspect" && object == nil) {
            guard member == "Introspect", object != nil || hasDescendants(path) else {
                return replyUnknown(message, path: path, interface: interface, member: member, object: object)
            }
            send(to: message, [.string(introspection(of: object, at: path))])
            return DBUS_HANDLER_RESULT_HANDLED
        }
        guard let object else {
            return replyUnknown(message, path: path, interface: interface, member: member, object: nil)
        }
        if interface == Self.propertiesInterface {
            handleProperties(message, member: member, object: object)
            return DBUS_HANDLER_RESULT_HANDLED
        }
        let found: (DBusInterface, DBusMethod)?
        if let interface {
            found = object.interfaces[interface].flatMap { i in i.methods.first { $0.name == member }.map { (i, $0) } }
        } else {
            found = object.sortedInterfaces.lazy.compactMap { i in i.methods.first { $0.name == member }.map { (i, $0) } }.first
        }
        guard let (iface, method) = found else {
            return replyUnknown(message, path: path, interface: interface, member: member, object: object)
        }
        if let expected = method.inSignature, message.signature != expected {
            sendError(to: message, "org.freedesktop.DBus.Error.InvalidArgs",
                      "\(iface.name).\(member) takes '\(expected)', got '\(message.signature)'")
            return DBUS_HANDLER_RESULT_HANDLED
        }
        let arguments: [DBusValue]
        do { arguments = try message.arguments() } catch {
            sendError(to: message, "org.freedesktop.DBus.Error.InvalidArgs", error.description)
            return DBUS_HANDLER_RESULT_HANDLED
        }
        let call = DBusMethodCall(message: message, engine: self, sender: message.sender ?? "", path: path,
                                  interface: iface.name, member: member, arguments: arguments,
                                  outSignature: method.outSignature)
        switch method.handler {
        case .replying(let handler):
            Self.finish(call) { () throws(DBusError) in try handler(call) }
        case .deferred(let handler):
            handler(call)
        case .async(let handler):
            Task {
                let result: Result<[DBusValue], DBusError>
                do throws(DBusError) { result = .success(try await handler(call)) } catch { result = .failure(error) }
                Self.finish(call) { () throws(DBusError) in try result.get() }
            }
        }
        return DBUS_HANDLER_RESULT_HANDLED
    }

    /// Replies with the handler's body or error. A body that cannot be sent becomes an error reply; a failure to
    /// send at all (closed connection, handler already replied) leaves nobody to tell.
    private static func finish(_ call: DBusMethodCall, _ body: () throws(DBusError) -> [DBusValue]) {
        do {
            try call.reply(try body())
        } catch .alreadyReplied, .disconnected {
            return
        } catch {
            try? call.reply(error: error)
        }
    }

    private func replyUnknown(_ message: DBusMessage, path: DBusObjectPath, interface: String?, member: String,
                              object: ExportedObject?) -> DBusHandlerResult {
        if object == nil {
            sendError(to: message, "org.freedesktop.DBus.Error.UnknownObject", "No object at path \(path)")
        } else if let interface, object?.interfaces[interface] == nil {
            sendError(to: message, "org.freedesktop.DBus.Error.UnknownInterface",
                      "No interface \(interface) at path \(path)")
        } else {
            sendError(to: message, "org.freedesktop.DBus.Error.UnknownMethod",
                      "No method \(member) with signature '\(message.signature)' on \(interface ?? "any interface") at \(path)")
        }
        return DBUS_HANDLER_RESULT_HANDLED
    }

    // MARK: Properties

    private func handleProperties(_ message: DBusMessage, member: String, object: ExportedObject) {
        let args = (try? message.arguments()) ?? []
        switch (member, message.signature) {
        case ("Get", "ss"):
            guard args.count == 2, case .string(let name) = args[0], case .string(let propertyName) = args[1] else { return }
            guard let interface = object.interfaces[name] else {
                return sendError(to: message, "org.freedesktop.DBus.Error.UnknownInterface", "No interface \(name)")
            }
            guard let property = interface.properties.first(where: { $0.name == propertyName }) else {
                return sendError(to: message, "org.freedesktop.DBus.Error.UnknownProperty",
                                 "No property \(propertyName) on \(name)")
            }
            do { send(to: message, [.variant(try value(of: property, in: name))]) } catch {
                let (errorName, text) = DBusMethodCall.errorReply(for: error)
                sendError(to: message, errorName, text)
            }
        case ("GetAll", "s"):
            guard args.count == 1, case .string(let name) = args[0] else { return }
            let interfaces = name.isEmpty ? object.sortedInterfaces : object.interfaces[name].map { [$0] }
            guard let interfaces else {
                return sendError(to: message, "org.freedesktop.DBus.Error.UnknownInterface", "No interface \(name)")
            }
            var values: [String: DBusValue] = [:]
            do {
                for interface in interfaces {
                    for property in interface.properties { values[property.name] = try value(of: property, in: interface.name) }
                }
                send(to: message, [.vardict(values)])
            } catch {
                let (errorName, text) = DBusMethodCall.errorReply(for: error)
                sendError(to: message, errorName, text)
            }
        case ("Set", "ssv"):
            sendError(to: message, "org.freedesktop.DBus.Error.PropertyReadOnly", "Properties of this object are read-only")
        default:
            sendError(to: message, "org.freedesktop.DBus.Error.UnknownMethod",
                      "No method \(member) with signature '\(message.signature)' on \(Self.propertiesInterface)")
        }
    }

    private func value(of property: DBusProperty, in interface: String) throws(DBusError) -> DBusValue {
        let value = try property.get()
        guard value.type == property.type else {
            throw .remote(name: "org.freedesktop.DBus.Error.Failed",
                          message: "property \(interface).\(property.name) returned \(value.type), declared \(property.type)")
        }
        return value
    }

    // MARK: Introspection

    private func hasDescendants(_ path: DBusObjectPath) -> Bool {
        (Array(objects.keys) + Array(fallbacks.keys)).contains { $0 != path && $0.isDescendant(ofOrEqualTo: path) }
    }

    /// Minimal introspection XML (`org.freedesktop.DBus.Introspectable.Introspect`): the standard interfaces, the
    /// object's interfaces with their methods, properties and signals, and the child nodes.
    func introspection(of object: ExportedObject?, at path: DBusObjectPath) -> String {
        var xml = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        <node>
          <interface name="org.freedesktop.DBus.Introspectable">
            <method name="Introspect"><arg name="xml_data" type="s" direction="out"/></method>
          </interface>
          <interface name="org.freedesktop.DBus.Peer">
            <method name="Ping"/>
            <method name="GetMachineId"><arg name="machine_uuid" type="s" direction="out"/></method>
          </interface>

        """
        if let object {
            xml += """
              <interface name="org.freedesktop.DBus.Properties">
                <method name="Get"><arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="v" direction="out"/></method>
                <method name="GetAll"><arg type="s" direction="in"/><arg type="a{sv}" direction="out"/></method>
                <method name="Set"><arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="v" direction="in"/></method>
                <signal name="PropertiesChanged"><arg type="s"/><arg type="a{sv}"/><arg type="as"/></signal>
              </interface>

            """
            for interface in object.sortedInterfaces {
                xml += "  <interface name=\"\(interface.name)\">\n"
                for method in interface.methods {
                    let args = Self.args(method.inSignature, "in") + Self.args(method.outSignature, "out")
                    xml += "    <method name=\"\(method.name)\">\(args)</method>\n"
                }
                for property in interface.properties {
                    xml += "    <property name=\"\(property.name)\" type=\"\(Self.escape(property.type.signature))\" access=\"read\"/>\n"
                }
                for signal in interface.signals {
                    xml += "    <signal name=\"\(signal.name)\">\(Self.args(signal.signature, nil))</signal>\n"
                }
                xml += "  </interface>\n"
            }
        }
        for child in children(of: path) { xml += "  <node name=\"\(child)\"/>\n" }
        return xml + "</node>\n"
    }

    private static func args(_ signature: String?, _ direction: String?) -> String {
        guard let signature, let types = try? DBusType.parseList(signature) else { return "" }
        let attribute = direction.map { " direction=\"\($0)\"" } ?? ""
        return types.map { "<arg type=\"\(escape($0.signature))\"\(attribute)/>" }.joined()
    }

    /// `{` and `(` need no escaping in XML attributes; nothing in a signature does, but keep it honest.
    private static func escape(_ text: String) -> String {
        text.split(separator: "&", omittingEmptySubsequences: false).joined(separator: "&amp;")
    }

    /// The first path element of every exported path strictly below `path`.
    private func children(of path: DBusObjectPath) -> [String] {
        let prefix = path.rawValue == "/" ? "/" : path.rawValue + "/"
        var names: Set<String> = []
        for key in Array(objects.keys) + Array(fallbacks.keys) where key.rawValue.hasPrefix(prefix) && key != path {
            if let first = key.rawValue.dropFirst(prefix.count).split(separator: "/").first { names.insert(String(first)) }
        }
        return names.sorted()
    }

    // MARK: Sending replies from the queue

    private func send(to call: DBusMessage, _ body: [DBusValue]) {
        guard call.expectsReply, let reply = try? call.methodReturn() else { return }
        do { try reply.append(body) } catch {
            return sendError(to: call, "org.freedesktop.DBus.Error.Failed", error.description)
        }
        try? send(reply)
    }

    private func sendError(to call: DBusMessage, _ name: String, _ text: String) {
        guard call.expectsReply, let reply = try? call.errorReply(name: name, message: text) else { return }
        try? send(reply)
    }
}

/// The interfaces exported at one path (or below a prefix, for a fallback).
struct ExportedObject: Sendable {
    let interfaces: [String: DBusInterface]
    var sortedInterfaces: [DBusInterface] { interfaces.values.sorted { $0.name < $1.name } }

    init(_ interfaces: [DBusInterface]) {
        var byName: [String: DBusInterface] = [:]
        for interface in interfaces { byName[interface.name] = interface }
        self.interfaces = byName
    }
}
