import CDBus
import Dispatch
import Synchronization

/// The machinery behind a ``DBusConnection``: the libdbus `DBusConnection*`, its pump, pending calls,
/// subscriptions and exported objects.
///
/// Threading invariant (why `@unchecked Sendable` is sound): every libdbus call on `connection` and every access to
/// the mutable state below happens on `queue`, a serial queue; the C callbacks (watches, timeouts, filter,
/// pending-call notifications) are only ever invoked by libdbus from inside those calls, hence on `queue` too.
/// Messages are built on the caller's thread and handed over. `closed` is atomic so any thread may check it.
final class DBusConnectionEngine: @unchecked Sendable {
    let queue: DispatchQueue
    private let queueKey = DispatchSpecificKey<Bool>()
    let address: String
    let uniqueName: String
    /// Whether the transport passes unix fds (`dbus_connection_can_send_type(DBUS_TYPE_UNIX_FD)`).
    let canPassFileDescriptors: Bool
    /// True once ``close()`` or a disconnection tore the connection down.
    let closed = Atomic<Bool>(false)
    private let nextIDs = Atomic<UInt64>(1)

    // MARK: Queue-confined state
    var connection: OpaquePointer?
    var watches: [OpaquePointer: WatchSources] = [:]
    var timers: [OpaquePointer: DispatchSourceTimer] = [:]
    var pendingCalls: [UInt64: PendingCall] = [:]
    var subscriptions: [UInt64: SubscriptionRecord] = [:]
    var objects: [DBusObjectPath: ExportedObject] = [:]
    var fallbacks: [DBusObjectPath: ExportedObject] = [:]
    var dispatchDepth = 0
    var releaseDeferred = false

    /// Opens a private connection (`dbus_connection_open_private`), turns off `exit()` on disconnection
    /// (`dbus_connection_set_exit_on_disconnect`) and says Hello (`dbus_bus_register`, which blocks until the bus
    /// answers). The pump is started by ``start()``.
    init(address: String) throws(DBusError) {
        _ = dbus_threads_init_default()
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        guard let conn = dbus_connection_open_private(address, &error) else {
            throw .connectionFailed(address: address, name: error.name.map { String(cString: $0) } ?? "",
                                    message: error.message.map { String(cString: $0) } ?? "")
        }
        dbus_connection_set_exit_on_disconnect(conn, 0)
        guard dbus_bus_register(conn, &error) != 0, let unique = dbus_bus_get_unique_name(conn) else {
            let failure = DBusError.connectionFailed(address: address, name: error.name.map { String(cString: $0) } ?? "",
                                                     message: error.message.map { String(cString: $0) } ?? "Hello failed")
            dbus_connection_close(conn)
            dbus_connection_unref(conn)
            throw failure
        }
        self.address = address
        self.uniqueName = String(cString: unique)
        self.canPassFileDescriptors = dbus_connection_can_send_type(conn, CDBUS_TYPE_UNIX_FD) != 0
        self.connection = conn
        self.queue = DispatchQueue(label: "pwrecord.dbus.\(uniqueName)")
        queue.setSpecific(key: queueKey, value: true)
    }

    /// Installs the pump and the filter (see `DBusConnectionEngine+Pump.swift`).
    func start() {
        onQueue { installPump() }
    }

    func makeID() -> UInt64 { nextIDs.add(1, ordering: .relaxed).oldValue }

    /// Runs `body` on the queue and waits for it; runs it inline when already on the queue (a handler calling back
    /// into the connection), so it never deadlocks.
    func onQueue<T>(_ body: () -> T) -> T {
        if DispatchQueue.getSpecific(key: queueKey) == true { return body() }
        return queue.sync(execute: body)
    }

    var isOnQueue: Bool { DispatchQueue.getSpecific(key: queueKey) == true }

    // MARK: Sending

    /// Queues `message` for sending (`dbus_connection_send`); never blocks. Throws when closed.
    func send(_ message: DBusMessage) throws(DBusError) {
        guard !closed.load(ordering: .acquiring) else { throw .disconnected }
        try checkFileDescriptors(message)
        queue.async { [self] in
            guard let connection else { return }
            _ = dbus_connection_send(connection, message.pointer, nil)
        }
    }

    /// libdbus would silently fail to send fds over a transport that cannot pass them.
    private func checkFileDescriptors(_ message: DBusMessage) throws(DBusError) {
        guard !canPassFileDescriptors, dbus_message_contains_unix_fds(message.pointer) != 0 else { return }
        throw .invalidArgument("the connection to \(address) cannot pass unix file descriptors")
    }

    /// Sends a method call and awaits its reply without blocking the queue: `dbus_connection_send_with_reply` plus a
    /// pending-call notification. Cancelling the task cancels the pending call (`dbus_pending_call_cancel`).
    func call(_ message: DBusMessage, member: String, timeout: Duration) async throws(DBusError) -> DBusMessage {
        try checkFileDescriptors(message)
        let id = makeID()
        let state = CallState()
        let result: Result<DBusMessage, DBusError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                queue.async { [self] in
                    startCall(message, id: id, state: state, member: member, timeout: timeout) {
                        continuation.resume(returning: $0)
                    }
                }
            }
        } onCancel: {
            if state.cancel() { queue.async { [self] in cancelCall(id) } }
        }
        return try result.get()
    }

    /// Starts a call; `completion` runs on the queue exactly once. Must run on the queue.
    func startCall(_ message: DBusMessage, id: UInt64, state: CallState = CallState(), member: String,
                   timeout: Duration, completion: @escaping (Result<DBusMessage, DBusError>) -> Void) {
        guard state.start() else { return completion(.failure(.cancelled)) }
        guard let connection, !closed.load(ordering: .acquiring) else { return completion(.failure(.disconnected)) }
        var pending: OpaquePointer?
        guard dbus_connection_send_with_reply(connection, message.pointer, &pending, Self.milliseconds(timeout)) != 0 else {
            return completion(.failure(.outOfMemory(function: "dbus_connection_send_with_reply")))
        }
        guard let pending else { return completion(.failure(.disconnected)) }
        pendingCalls[id] = PendingCall(pointer: pending, member: member, timeout: timeout, completion: completion)
        let context = Unmanaged.passRetained(PendingCallContext(engine: self, id: id)).toOpaque()
        guard dbus_pending_call_set_notify(pending, pendingCallNotify, context, releasePendingCallContext) != 0 else {
            Unmanaged<PendingCallContext>.fromOpaque(context).release()
            pendingCalls[id] = nil
            dbus_pending_call_cancel(pending)
            dbus_pending_call_unref(pending)
            return completion(.failure(.outOfMemory(function: "dbus_pending_call_set_notify")))
        }
        // A call completed before the notification was set would never notify.
        if dbus_pending_call_get_completed(pending) != 0 { completeCall(id) }
    }

    /// The pending call `id` has its reply (or libdbus' timeout error). Runs on the queue.
    func completeCall(_ id: UInt64) {
        guard let call = pendingCalls.removeValue(forKey: id) else { return }
        let reply = dbus_pending_call_steal_reply(call.pointer)
        dbus_pending_call_unref(call.pointer)
        guard let reply else {
            return call.completion(.failure(.noReply(member: call.member, reason: "the call completed without a reply")))
        }
        let message = DBusMessage(adopting: reply)
        guard message.isError else { return call.completion(.success(message)) }
        call.completion(.failure(errorFromReply(message, call: call)))
    }

    private func errorFromReply(_ message: DBusMessage, call: PendingCall) -> DBusError {
        let name = message.errorName ?? "org.freedesktop.DBus.Error.Failed"
        let text: String
        if case .string(let s)? = (try? message.arguments())?.first { text = s } else { text = "" }
        switch name {
        case "org.freedesktop.DBus.Error.NoReply":
            if let connection, dbus_connection_get_is_connected(connection) == 0 { return .disconnected }
            // The bus sends NoReply itself when the peer left without answering; libdbus' own timeout has no sender.
            return message.sender == DBusConnection.busName
                ? .noReply(member: call.member, reason: text) : .timeout(member: call.member, after: call.timeout)
        case "org.freedesktop.DBus.Error.Disconnected":
            return .disconnected
        default:
            return .remote(name: name, message: text)
        }
    }

    /// Cancels the pending call `id` (the task awaiting it was cancelled). Runs on the queue.
    func cancelCall(_ id: UInt64) {
        guard let call = pendingCalls.removeValue(forKey: id) else { return }
        dbus_pending_call_cancel(call.pointer)
        dbus_pending_call_unref(call.pointer)
        call.completion(.failure(.cancelled))
    }

    /// libdbus wants milliseconds as `int`; 24 days or more means `DBUS_TIMEOUT_INFINITE`.
    static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        guard seconds < Int64(Int32.max / 1000) else { return CDBUS_TIMEOUT_INFINITE }
        return Int32(clamping: max(1, seconds * 1000 + attoseconds / 1_000_000_000_000_000))
    }

    // MARK: Closing

    /// Fails pending calls with ``DBusError/disconnected``, ends subscriptions, drops exported objects and releases
    /// the libdbus connection (`dbus_connection_close`, `dbus_connection_unref`). Idempotent, from any thread.
    func close() {
        onQueue { tearDown() }
    }

    /// Runs on the queue; the libdbus part waits until a running `dbus_connection_dispatch` has returned.
    func tearDown() {
        if !closed.exchange(true, ordering: .acquiringAndReleasing) {
            let calls = pendingCalls
            pendingCalls = [:]
            for (_, call) in calls.sorted(by: { $0.key < $1.key }) {
                dbus_pending_call_cancel(call.pointer)
                dbus_pending_call_unref(call.pointer)
                call.completion(.failure(.disconnected))
            }
            let records = subscriptions
            subscriptions = [:]
            for record in records.values { record.finish() }
            objects = [:]
            fallbacks = [:]
        }
        if dispatchDepth > 0 { releaseDeferred = true } else { releaseLibdbus() }
    }

    private func releaseLibdbus() {
        releaseDeferred = false
        guard let conn = connection else { return }
        dbus_connection_close(conn)
        uninstallPump(conn)
        dbus_connection_unref(conn)
        connection = nil
    }
}

/// One outstanding method call.
struct PendingCall {
    let pointer: OpaquePointer
    let member: String
    let timeout: Duration
    let completion: (Result<DBusMessage, DBusError>) -> Void
}

/// The user data of a pending-call notification: which call, on which engine.
final class PendingCallContext {
    weak var engine: DBusConnectionEngine?
    let id: UInt64
    init(engine: DBusConnectionEngine, id: UInt64) {
        self.engine = engine
        self.id = id
    }
}

/// `DBusPendingCallNotifyFunction`: runs inside `dbus_connection_dispatch`, on the queue.
let pendingCallNotify: DBusPendingCallNotifyFunction = { _, data in
    guard let data else { return }
    let context = Unmanaged<PendingCallContext>.fromOpaque(data).takeUnretainedValue()
    context.engine?.completeCall(context.id)
}

/// `DBusFreeFunction` for ``PendingCallContext``.
let releasePendingCallContext: DBusFreeFunction = { data in
    guard let data else { return }
    Unmanaged<PendingCallContext>.fromOpaque(data).release()
}

/// Whether a call was started on the queue or cancelled first; whichever comes first wins.
final class CallState: Sendable {
    private enum Phase { case new, started, cancelled }
    private let phase = Mutex(Phase.new)

    /// True when the call may start (not cancelled before).
    func start() -> Bool {
        phase.withLock { p in
            guard p == .new else { return false }
            p = .started
            return true
        }
    }

    /// Marks the call cancelled; true when it had already started (so the pending call must be cancelled).
    func cancel() -> Bool {
        phase.withLock { p in
            defer { p = .cancelled }
            return p == .started
        }
    }
}
