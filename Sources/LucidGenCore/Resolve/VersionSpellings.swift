import Foundation
@_spi(Generated) import LucidSchema

/// One spelling per version. `1.0` and `1.0.0` are the same version (``SchemaVersion`` compares
/// numerically), but file, type and fixture names use the spelling (`1.0.json`, `Note_1_0`). The spelling
/// of a version's existing snapshot is canonical, so a respelling in the config or a history never renames
/// a snapshot or a record type that the app's stages use; a version without a snapshot yet takes its first
/// spelling in the histories (in file order), then the config's.
struct VersionSpellings {
    private var canonical: [SchemaVersion: SchemaVersion] = [:]

    init(snapshots: [SchemaVersion], entities: [EntityDescription], config: Config) {
        for version in snapshots { canonical[version] = version }
        for entity in entities.sorted(by: { $0.location < $1.location }) {
            for version in entity.versionHistory.map(\.version) + [entity.removedAtVersion].compactMap({ $0 })
            where canonical[version] == nil {
                canonical[version] = version
            }
        }
        if let current = config.currentVersion, canonical[current] == nil { canonical[current] = current }
    }

    func callAsFunction(_ version: SchemaVersion) -> SchemaVersion { canonical[version] ?? version }

    /// Notes for each spelling that differs from the canonical one.
    func notes(entities: [EntityDescription], config: Config, _ diagnostics: inout DiagnosticCollector) {
        var noted = Set<String>()
        func check(_ version: SchemaVersion, at location: SourceLocation?) {
            let spelled = self(version)
            guard spelled.string != version.string, noted.insert(version.string).inserted else { return }
            diagnostics.note(
                "version \(version.string) is version \(spelled.string), spelled so in its snapshot or first history item; file and type names keep '\(spelled.string)' (\(spelled.identifierSuffix))",
                at: location)
        }
        if let current = config.currentVersion { check(current, at: SourceLocation(file: displayPath(config.file))) }
        for entity in entities {
            for item in entity.versionHistory { check(item.version, at: item.location) }
        }
    }

    func canonical(_ config: Config) -> Config {
        var result = config
        result.currentVersion = config.currentVersion.map(self.callAsFunction)
        for index in result.hookStages.indices {
            result.hookStages[index].from = self(result.hookStages[index].from)
            result.hookStages[index].to = self(result.hookStages[index].to)
        }
        return result
    }

    func canonical(_ entity: EntityDescription) -> EntityDescription {
        var result = entity
        result.removedAtVersion = entity.removedAtVersion.map(self.callAsFunction)
        for index in result.versionHistory.indices { result.versionHistory[index].version = self(result.versionHistory[index].version) }
        for index in result.properties.indices {
            var property = result.properties[index]
            property.addedAtVersion = property.addedAtVersion.map(self.callAsFunction)
            property.removedAtVersion = property.removedAtVersion.map(self.callAsFunction)
            property.renamedAtVersion = property.renamedAtVersion.map(self.callAsFunction)
            for item in property.typeHistory.indices {
                property.typeHistory[item].untilVersion = self(property.typeHistory[item].untilVersion)
            }
            result.properties[index] = property
        }
        return result
    }
}
