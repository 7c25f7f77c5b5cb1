/// The first line of a recording: what wrote it and how to read it.
///
/// ```json
/// {"recording":"ReduxConsumer","format":"1.0","library":"0.1.0-dev","hash":"structural64","snapshotInterval":1000}
/// ```
///
/// A reader accepts any recording of the same major ``formatVersion`` (later minor versions only
/// add members that older readers ignore) and refuses a newer major version with
/// ``ReplayError/Kind/newerFormat(found:supported:)``.
public struct RecordingHeader: Sendable, Hashable {
    /// The format version this library writes: `"1.0"`.
    public static let currentFormatVersion = "1.0"

    /// The version of the format the recording was written in, `"major.minor"`.
    public var formatVersion: String
    /// The version of ReduxConsumer that wrote it; informative only.
    public var libraryVersion: String
    /// The name of the ``StateHash`` behind the recorded hashes, or `nil` when there are none.
    public var hashName: String?
    /// Every how many actions a state snapshot was recorded, or `nil` when only the initial state
    /// (if any) was.
    public var snapshotInterval: Int?

    /// Creates a header.
    ///
    /// - Parameters:
    ///   - formatVersion: The format version, `"major.minor"`.
    ///   - libraryVersion: The library version that writes the recording.
    ///   - hashName: The name of the state hash, if hashes are recorded.
    ///   - snapshotInterval: Every how many actions a snapshot is recorded, if any.
    public init(
        formatVersion: String = RecordingHeader.currentFormatVersion,
        libraryVersion: String = RecordingFormat.libraryVersion,
        hashName: String? = nil,
        snapshotInterval: Int? = nil
    ) {
        self.formatVersion = formatVersion
        self.libraryVersion = libraryVersion
        self.hashName = hashName
        self.snapshotInterval = snapshotInterval
    }
}
