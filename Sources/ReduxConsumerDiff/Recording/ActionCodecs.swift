import ReduxConsumer

/// The action types a recording can hold, each under a stable name you choose.
///
/// A recording never stores Swift type names, which change when code is renamed or moved; it
/// stores the name an action type was registered under, and the action's `Codable` payload:
///
/// ```swift
/// var codecs = ActionCodecs()
/// codecs.register(CounterAction.self, as: "counter")
/// codecs.register(AuthAction.self, as: "auth")
/// ```
///
/// Register the same codecs where you record and where you replay. An action type that is not
/// `Codable` (it holds a closure, a class, a file handle) registers with a `Codable` stand-in:
///
/// ```swift
/// codecs.register(
///     UploadAction.self, as: "upload",
///     encode: { action in action.fileName },
///     decode: { fileName in UploadAction(fileName: fileName, data: Data()) }
/// )
/// ```
///
/// An action of a type with no codec stops a recording, or is recorded as skipped; see
/// ``SessionRecorder/UnregisteredActions``.
///
/// Decoding must be a pure function of the recorded payload, as replaying needs anyway: a reader
/// decodes a payload it met recently once, and dispatches the same value again for identical
/// bytes (a session repeats a few small actions many times). Actions that are objects, or hold
/// one, are decoded for every line.
public struct ActionCodecs: Sendable {
    private var byType: [ObjectIdentifier: Codec] = [:]
    private var byName: [String: Codec] = [:]

    /// How one action type is written and read back. A class: the reader and the recorder
    /// pass codecs around per action, and a class costs one retain where a struct of four
    /// references costs four.
    final class Codec: Sendable {
        let name: String
        /// The name's UTF-8 bytes, compared with a line's bytes without making a string.
        let nameBytes: [UInt8]
        let typeName: String
        let encode: @Sendable (_ action: any Action, _ stream: EncodingStream) throws -> Void
        let decode: @Sendable (_ document: JSONDocument, _ node: Int) throws -> any Action

        init(
            name: String,
            typeName: String,
            encode: @escaping @Sendable (_ action: any Action, _ stream: EncodingStream) throws -> Void,
            decode: @escaping @Sendable (_ document: JSONDocument, _ node: Int) throws -> any Action
        ) {
            self.name = name
            nameBytes = Array(name.utf8)
            self.typeName = typeName
            self.encode = encode
            self.decode = decode
        }
    }

    /// Creates an empty registry.
    public init() {}

    /// The names registered so far, sorted.
    public var names: [String] {
        byName.keys.sorted()
    }

    /// Registers a `Codable` action type under `name`.
    ///
    /// The payload is the action's own `Codable` representation; an enum with associated values
    /// records as `{"rename":{"_0":"Kim"}}`.
    ///
    /// - Parameters:
    ///   - type: The action type.
    ///   - name: The name recordings use for it: keep it stable across releases. Must not be empty.
    /// - Precondition: Neither `type` nor `name` is registered already.
    public mutating func register<RegisteredAction: Action & Codable>(_ type: RegisteredAction.Type, as name: String) {
        add(
            Codec(
                name: name,
                typeName: String(reflecting: type),
                encode: { action, stream in
                    try stream.encode(cast(action, to: RegisteredAction.self))
                },
                decode: { document, node in try document.decode(RegisteredAction.self, at: node) }
            ),
            for: type
        )
    }

    /// Registers an action type under `name`, recorded through a `Codable` stand-in.
    ///
    /// - Parameters:
    ///   - type: The action type.
    ///   - name: The name recordings use for it: keep it stable across releases. Must not be empty.
    ///   - encode: Makes the stand-in recorded for an action; may throw to refuse an action.
    ///   - decode: Makes the action back from its stand-in when a recording is read.
    /// - Precondition: Neither `type` nor `name` is registered already.
    public mutating func register<RegisteredAction: Action, Payload: Codable & Sendable>(
        _ type: RegisteredAction.Type,
        as name: String,
        encode: @escaping @Sendable (RegisteredAction) throws -> Payload,
        decode: @escaping @Sendable (Payload) throws -> RegisteredAction
    ) {
        add(
            Codec(
                name: name,
                typeName: String(reflecting: type),
                encode: { action, stream in
                    try stream.encode(encode(cast(action, to: RegisteredAction.self)))
                },
                decode: { document, node in try decode(document.decode(Payload.self, at: node)) }
            ),
            for: type
        )
    }

    /// The codec for `action`'s type, or `nil` when that type is not registered.
    func codec(for action: any Action) -> Codec? {
        byType[ObjectIdentifier(Swift.type(of: action))]
    }

    /// The codec registered under `name`, or `nil`.
    func codec(named name: String) -> Codec? {
        byName[name]
    }

    private mutating func add(_ codec: Codec, for type: any Action.Type) {
        requireProperUse(!codec.name.isEmpty, "ActionCodecs: \(codec.typeName) needs a non-empty name")
        if let existing = byName[codec.name] {
            stopOnMisuse(
                "ActionCodecs: the name \"\(codec.name)\" is already registered for \(existing.typeName); "
                    + "choose another name for \(codec.typeName)"
            )
        }
        if let existing = byType[ObjectIdentifier(type)] {
            stopOnMisuse(
                "ActionCodecs: \(codec.typeName) is already registered as \"\(existing.name)\""
            )
        }
        byType[ObjectIdentifier(type)] = codec
        byName[codec.name] = codec
    }
}

/// `action` as the type its codec was registered for; the registry looks codecs up by the action's
/// exact type, so this never fails unless the registry is broken.
///
/// A general `as?` costs a call into the runtime's dynamic cast (about as much as encoding a small
/// action); with the exact type known, the value is read out of the existential as that type.
private func cast<RegisteredAction: Action>(_ action: any Action, to type: RegisteredAction.Type) throws
    -> RegisteredAction
{
    guard Swift.type(of: action) == RegisteredAction.self else {
        guard let action = action as? RegisteredAction else {
            throw EncodingStream.error("\(Swift.type(of: action)) reached the codec of \(RegisteredAction.self)")
        }
        return action
    }
    func read<Opened: Action>(_ opened: Opened) -> RegisteredAction {
        // `Opened` is `RegisteredAction` (checked above), so the memory holds one.
        withUnsafePointer(to: opened) { UnsafeRawPointer($0).load(as: RegisteredAction.self) }
    }
    return read(action)
}
