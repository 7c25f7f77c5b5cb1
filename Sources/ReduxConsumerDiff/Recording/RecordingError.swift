/// Why a ``SessionRecorder`` could not start, or stopped recording.
///
/// A recorder never lets an error reach the store: dispatch goes on, the recorder stops writing
/// at the first error, keeps it in ``SessionRecorder/failure``, and ``SessionRecorder/flush()``
/// and ``SessionRecorder/close()`` throw it. Except after a write error, ``SessionRecorder/close()``
/// still ends the recording with an `end` line that names the error, so a replay of it stops
/// there with ``ReplayError/Kind/recorderFailed(reason:)`` instead of reporting a truncated file.
public struct RecordingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Hashable {
        /// The recording file could not be created or opened.
        case cannotOpen(path: String, reason: String)
        /// Writing to the destination failed (disk full, closed pipe…): nothing more is written.
        case writeFailed(reason: String)
        /// An action of a type with no codec in ``ActionCodecs``, with
        /// ``SessionRecorder/UnregisteredActions/fail``. `actionType` is the Swift type's name.
        case noCodec(actionType: String)
        /// A codec or the action's `encode(to:)` threw.
        case encodingFailed(actionType: String, reason: String)
        /// The state could not be encoded for a snapshot or hashed (a `Double` NaN, an `encode(to:)`
        /// that throws), or snapshots were asked for a state that is not `Encodable`.
        case stateNotEncodable(reason: String)
    }

    /// What went wrong.
    public let kind: Kind
    /// The number of the action being recorded when it happened (actions count from 1), or `nil`
    /// when it did not happen while recording an action.
    public let actionIndex: Int?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - kind: What went wrong.
    ///   - actionIndex: The action being recorded, if any.
    public init(_ kind: Kind, actionIndex: Int? = nil) {
        self.kind = kind
        self.actionIndex = actionIndex
    }

    /// One line saying what happened and what to do about it.
    public var description: String {
        let action = actionIndex.map { " (action \($0))" } ?? ""
        switch kind {
        case .cannotOpen(let path, let reason):
            return "cannot open \(path) for recording: \(reason)"
        case .writeFailed(let reason):
            return "writing the recording failed\(action): \(reason); nothing more was recorded"
        case .noCodec(let actionType):
            return "no codec is registered for action type \(actionType)\(action); "
                + "register it in ActionCodecs, or record with unregisteredActions: .skip"
        case .encodingFailed(let actionType, let reason):
            return "an action of type \(actionType) could not be encoded\(action): \(reason)"
        case .stateNotEncodable(let reason):
            return "the state could not be recorded\(action): \(reason)"
        }
    }
}
