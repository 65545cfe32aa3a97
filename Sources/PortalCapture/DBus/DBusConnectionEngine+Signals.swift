import CDBus
import Synchronization

/// Signal routing: the filter hands every signal to the subscriptions whose rule matches it.
extension DBusConnectionEngine {
    /// The filter (`dbus_connection_add_filter`): signals go to subscriptions, method calls to exported objects.
    func route(_ pointer: OpaquePointer) -> DBusHandlerResult {
        switch dbus_message_get_type(pointer) {
        case DBUS_MESSAGE_TYPE_SIGNAL:
            routeSignal(DBusMessage(retaining: pointer))
            return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
        case DBUS_MESSAGE_TYPE_METHOD_CALL:
            return routeMethodCall(DBusMessage(retaining: pointer))
        default:
            return DBUS_HANDLER_RESULT_NOT_YET_HANDLED  // a late reply to a cancelled or timed-out call
        }
    }

    private func routeSignal(_ message: DBusMessage) {
        guard let path = message.path, let interface = message.interface, let member = message.member else { return }
        if interface == "org.freedesktop.DBus.Local" && member == "Disconnected" {
            tearDown()
            return
        }
        let sender = message.sender ?? ""
        var decoded: Result<[DBusValue], DBusError>?
        func arguments() -> Result<[DBusValue], DBusError> {
            if let decoded { return decoded }
            let result = Result { () throws(DBusError) in try message.arguments() }
            decoded = result
            return result
        }
        if sender == DBusConnection.busName && interface == DBusConnection.busInterface && member == "NameOwnerChanged",
           case .success(let args) = arguments(), args.count == 3,
           case .string(let name) = args[0], case .string(let newOwner) = args[2] {
            for record in subscriptions.values where record.rule.sender == name {
                record.senderOwner = newOwner.isEmpty ? nil : newOwner
            }
        }
        for (_, record) in subscriptions.sorted(by: { $0.key < $1.key }) {
            let matches = record.rule.matches(sender: sender, path: path, interface: interface, member: member,
                                              senderOwner: record.senderOwner,
                                              arguments: { try? arguments().get() })
            guard matches else { continue }
            switch arguments() {
            case .success(let args):
                record.deliver(DBusSignal(sender: sender, path: path, interface: interface, member: member,
                                          arguments: args))
            case .failure:
                record.dropped.add(1, ordering: .relaxed)
            }
        }
    }

    // MARK: Subscribing

    /// Registers `record`, then (pipelined, in order) resolves a well-known sender through `NameOwnerChanged` and
    /// `GetNameOwner`, and sends `AddMatch` for the rule. Completes after the bus acknowledged `AddMatch`, so a call
    /// made afterwards cannot overtake the subscription. Runs on the queue.
    func addSubscription(_ record: SubscriptionRecord, completion: @escaping (DBusError?) -> Void) {
        guard !closed.load(ordering: .acquiring) else { return completion(.disconnected) }
        subscriptions[record.id] = record
        var failure: DBusError?
        let fail = { (error: DBusError) in
            if failure == nil { failure = error }
        }
        do throws(DBusError) {
            if let sender = record.rule.sender, !DBusMatchRule.isUniqueOrBus(sender) {
                record.ownerRule = .nameOwnerChanged(sender)
                startCall(try busCall("AddMatch", [.string(DBusMatchRule.nameOwnerChanged(sender).description)]),
                          id: makeID(), member: "AddMatch", timeout: .seconds(25)) { result in
                    if case .failure(let e) = result { fail(e) }
                }
                startCall(try busCall("GetNameOwner", [.string(sender)]), id: makeID(), member: "GetNameOwner",
                          timeout: .seconds(25)) { result in
                    // Applied in dispatch order, so a later NameOwnerChanged still wins.
                    if case .success(let reply) = result, case .string(let owner)? = (try? reply.arguments())?.first {
                        record.senderOwner = owner
                    }
                }
            }
            startCall(try busCall("AddMatch", [.string(record.rule.description)]), id: makeID(), member: "AddMatch",
                      timeout: .seconds(25)) { [self] result in
                if case .failure(let e) = result { fail(e) }
                if let failure {
                    removeSubscription(record.id)
                    completion(failure)
                } else {
                    completion(nil)
                }
            }
        } catch {
            removeSubscription(record.id)
            completion(error)
        }
    }

    /// Forgets the subscription, ends its stream and sends `RemoveMatch` (not awaited). Runs on the queue.
    func removeSubscription(_ id: UInt64) {
        guard let record = subscriptions.removeValue(forKey: id) else { return }
        record.finish()
        guard !closed.load(ordering: .acquiring) else { return }
        for rule in [record.rule, record.ownerRule].compactMap({ $0 }) {
            if let message = try? busCall("RemoveMatch", [.string(rule.description)]) {
                message.setNoReply()
                try? send(message)
            }
        }
    }

    /// A method call to the bus itself (`org.freedesktop.DBus` at `/org/freedesktop/DBus`).
    func busCall(_ member: String, _ body: [DBusValue]) throws(DBusError) -> DBusMessage {
        let message = try DBusMessage.methodCall(destination: DBusConnection.busName, path: DBusConnection.busPath,
                                                 interface: DBusConnection.busInterface, member: member)
        try message.append(body)
        return message
    }
}

/// One subscription as the engine sees it. Mutable fields are touched only on the queue.
final class SubscriptionRecord: @unchecked Sendable {
    let id: UInt64
    let rule: DBusMatchRule
    /// The `NameOwnerChanged` rule added to follow a well-known sender.
    var ownerRule: DBusMatchRule?
    /// The unique name a well-known sender currently resolves to.
    var senderOwner: String?
    /// Signals that matched but could not be decoded (e.g. a unix fd that could not be duplicated).
    let dropped = Atomic<Int>(0)
    private let handler: (@Sendable (DBusSignal) -> Void)?
    private let continuation: AsyncStream<DBusSignal>.Continuation?
    private let onEnd: (@Sendable () -> Void)?

    init(id: UInt64, rule: DBusMatchRule, handler: (@Sendable (DBusSignal) -> Void)?,
         continuation: AsyncStream<DBusSignal>.Continuation?, onEnd: (@Sendable () -> Void)? = nil) {
        self.id = id
        self.rule = rule
        self.handler = handler
        self.continuation = continuation
        self.onEnd = onEnd
    }

    func deliver(_ signal: DBusSignal) {
        if let handler { handler(signal) }
        continuation?.yield(signal)
    }

    func finish() {
        continuation?.finish()
        onEnd?()
    }
}
