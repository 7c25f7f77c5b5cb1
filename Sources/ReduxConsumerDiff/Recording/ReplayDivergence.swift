import ReduxConsumer

/// Where a replay stopped reproducing the recorded session: the first action after which the
/// replayed state differs from the recorded one.
///
/// ```text
/// session.jsonl:9: error: replay diverged after action 7, rename(Optional("Kim")):
/// state hash 0f3a9c1e5b7d2468 recorded, 9e8d7c6b5a493827 replayed (recorded → replayed):
///   ~ name: "Lee" → "Kim"
/// ```
public struct ReplayDivergence: Sendable {
    /// The number of the action (actions count from 1).
    public let index: Int
    /// The action, or `nil` for an action the recorder skipped.
    public let action: (any Action)?
    /// The action as text: its description, or the type name of a skipped action.
    public let actionDescription: String
    /// The hash the recording holds for the state after the action, if any.
    public let recordedHash: UInt64?
    /// The hash of the replayed state, if the recording holds one to compare with.
    public let replayedHash: UInt64?
    /// The changes from the recorded state to the replayed one, when the recording holds a
    /// snapshot after this action; `nil` when only the hashes could be compared.
    public let diff: StateDiff?

    /// Creates a divergence.
    ///
    /// - Parameters:
    ///   - index: The number of the action.
    ///   - action: The action, or `nil` for a skipped one.
    ///   - actionDescription: The action as text.
    ///   - recordedHash: The recorded hash, if any.
    ///   - replayedHash: The replayed state's hash, if computed.
    ///   - diff: The changes from the recorded state to the replayed one, if known.
    public init(
        index: Int,
        action: (any Action)?,
        actionDescription: String,
        recordedHash: UInt64?,
        replayedHash: UInt64?,
        diff: StateDiff?
    ) {
        self.index = index
        self.action = action
        self.actionDescription = actionDescription
        self.recordedHash = recordedHash
        self.replayedHash = replayedHash
        self.diff = diff
    }

    /// The divergence in words, on one line (the action's description with its control characters
    /// escaped), then the diff indented by two spaces, one change per line.
    public var description: String {
        var text = "replay diverged after action \(index), \(actionDescription.escapingControlCharacters())"
        if let recordedHash, let replayedHash {
            text += ": state hash \(hexadecimal(recordedHash)) recorded, \(hexadecimal(replayedHash)) replayed"
        }
        guard let diff else {
            return text + " (no snapshot was recorded after this action to show what differs)"
        }
        let lines =
            diff.changes.isEmpty
            ? ["(no difference found by reflection)"] : diff.rendered().split(separator: "\n").map(String.init)
        return text + " (recorded → replayed):\n" + lines.map { "  " + $0 }.joined(separator: "\n")
    }
}

/// A hash as the recording writes it: 16 lowercase hexadecimal digits.
func hexadecimal(_ hash: UInt64) -> String {
    let digits = String(hash, radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
}
