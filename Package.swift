// swift-tools-version: 6.0
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "ReduxConsumer",
    platforms: [.macOS(.v10_15), .iOS(.v13), .tvOS(.v13), .watchOS(.v6), .visionOS(.v1)],
    products: [
        .library(name: "ReduxConsumer", targets: ["ReduxConsumer"]),
        .library(name: "ReduxConsumerTesting", targets: ["ReduxConsumerTesting"]),
        .executable(name: "consumer-demo", targets: ["consumer-demo"]),
        .executable(name: "consumer-bench", targets: ["consumer-bench"]),
    ],
    targets: [
        .target(
            name: "ReduxConsumer",
            swiftSettings: strictSettings
        ),
        .target(
            name: "ReduxConsumerTesting",
            dependencies: ["ReduxConsumer"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "ConsumerDemoKit",
            dependencies: ["ReduxConsumer"],
            path: "Example/Sources/ConsumerDemoKit",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "consumer-demo",
            dependencies: ["ConsumerDemoKit"],
            path: "Example/Sources/consumer-demo",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "consumer-bench",
            dependencies: ["ReduxConsumer"],
            path: "Benchmarks/Sources/consumer-bench",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ReduxConsumerTests",
            dependencies: ["ReduxConsumer"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ReduxConsumerTestingTests",
            dependencies: ["ReduxConsumer", "ReduxConsumerTesting"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ConsumerDemoTests",
            dependencies: ["ConsumerDemoKit", "ReduxConsumer"],
            exclude: ["Golden"],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
