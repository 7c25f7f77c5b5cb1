/// The options of `consumer-demo record` and `consumer-demo replay`.
struct RecordingOptions: Equatable {
    /// How many actions `record` leaves between two snapshots of the whole state when
    /// `--snapshot-interval` is not given.
    static let defaultSnapshotInterval = 10

    /// `--script FILE`: the script `record` runs instead of the tour; `-` reads standard input.
    var scriptPath: String?
    /// `--snapshot-interval N`, if given.
    var snapshotInterval: Int?
    /// `--until N`: the last action `replay` applies.
    var lastIndex: Int?
    /// `--step`: step through the recording with commands read from standard input.
    var isStepping = false

    /// The snapshot interval `record` uses.
    var effectiveSnapshotInterval: Int {
        snapshotInterval ?? Self.defaultSnapshotInterval
    }
}
