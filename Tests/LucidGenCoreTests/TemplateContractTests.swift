import Foundation
import LucidTestSupport
import Testing

@testable import LucidGenCore

/// The contract between the templates and their contexts (`TemplateContexts.swift`): swift-mustache renders
/// a name no context has as nothing, so a misspelled name in a template, or a key renamed in a struct, would
/// otherwise only show as missing output. An app's own templates (`templates_path`) rely on the same keys,
/// which `LucidRuntime.docc/Templates.md` documents: it must list exactly these.
@Suite struct TemplateContractTests {
    static let contexts = TemplateContract.contexts
    static let header = TemplateKeys(of: HeaderContext.self)

    static func frames(_ template: String) -> [TemplateContract.Frame] { TemplateContract.frames(template) }

    static let contract = TemplateContract(partials: ["header": Renderer.bundledTemplate(named: "header")!])

    @Test func everyBundledTemplateHasAContext() {
        #expect(Set(Self.contexts.keys) == Set(Renderer.templateNames))
    }

    @Test(arguments: Renderer.templateNames)
    func everyNameATemplateUsesIsAKeyOfItsContext(_ template: String) throws {
        let text = try #require(Renderer.bundledTemplate(named: template))
        let findings = Self.contract.check(template, text: text, frames: Self.frames(template))
        #expect(findings.isEmpty, "\(findings.map(\.description).joined(separator: "\n"))")
    }

    @Test func everyContextKeyIsRenderable() {
        for (template, type) in Self.contexts {
            for (path, keys) in TemplateKeys(of: type).scopes() {
                for (key, slot) in keys.fields where slot.kindName.contains("unsupported") {
                    Issue.record("\(template): `\(path.isEmpty ? key : "\(path).\(key)")` is a \(slot.kindName)")
                }
            }
        }
    }

    /// The check can fail: a name the context lacks is reported where it is, at the top level, in a nested
    /// section (looked up through every enclosing context) and as a section; so are a list used as text and
    /// `{{.}}` outside a list of text. Names of enclosing contexts are found from within sections.
    @Test func aNameTheContextLacksIsReported() {
        let template = """
            {{#shapes}}{{typeName}} {{tpyeName}}
            {{#properties}}{{swiftName}} {{access}} {{tableName}} {{entityName}} {{nope}}{{/properties}}
            {{/shapes}}{{#newest}}{{#search}}{{ftsTable}}{{/search}}{{^enumColumns}}{{bogus}}{{/enumColumns}}{{/newest}}
            {{^missing}}{{/missing}}{{shapes}}{{.}}{{#shapes}}{{#kinds}}{{kindList}}{{/kinds}}{{/shapes}}
            """
        let findings = Self.contract.check("inline", text: template, frames: Self.frames("entity"))
        #expect(findings.map(\.line) == [1, 2, 3, 4, 4, 4])
        #expect(
            findings.map(\.message) == [
                "`{{tpyeName}}`: `tpyeName` is no key of EntityContext.Shape, then EntityContext, then HeaderContext; did you mean `typeName`?",
                "`{{nope}}`: `nope` is no key of EntityContext.Property, then EntityContext.Shape, then EntityContext, then HeaderContext",
                "`{{bogus}}`: `bogus` is no key of EntityContext.Newest, then EntityContext, then HeaderContext",
                "`{{^missing}}`: `missing` is no key of EntityContext, then HeaderContext",
                "`{{shapes}}`: `shapes` is a list, not text (open it as a section)",
                "`{{.}}` outside a section over text or numbers",
            ])
    }

    /// What an app's template may also hold: a block or a parent (checked inside, in the same contexts), other
    /// delimiters (the rest is not checked, and not reported), transforms; a partial no template has is reported.
    @Test func blocksParentsDelimitersAndPartialsInAnAppsTemplate() {
        let template = """
            {{#shapes}}{{$extra}}// {{typeName}} {{lowercased(tableName)}}{{/extra}}{{/shapes}}
            {{<header}}{{$more}}{{fileName}}{{/more}}{{/header}}
            {{> nowhere}}
            {{#shapes}}{{=<% %>=}}
            <% anything %>
            """
        let findings = Self.contract.check("inline", text: template, frames: Self.frames("entity"))
        #expect(findings.map(\.description) == ["inline.mustache:3: `{{> nowhere}}`: no template is named `nowhere` (header)"])
    }

    /// A bundled template with one name misspelled is reported at that name's line.
    @Test func aMisspelledNameInABundledTemplateIsReported() throws {
        let text = try #require(Renderer.bundledTemplate(named: "entity"))
        let line = try #require(text.components(separatedBy: "\n").firstIndex { $0.contains("self.{{swiftName}} = {{rowDecode}}") }) + 1
        let broken = text.replacingOccurrences(of: "self.{{swiftName}} = {{rowDecode}}", with: "self.{{swiftName}} = {{rowDecoder}}")
        let findings = Self.contract.check("entity", text: broken, frames: Self.frames("entity"))
        #expect(
            findings.map(\.description) == [
                "entity.mustache:\(line): `{{rowDecoder}}`: `rowDecoder` is no key of EntityContext.Property, then EntityContext.Shape, then EntityContext, then HeaderContext; did you mean `rowDecode`?"
            ])
    }

    /// The header's keys are merged into every context's: none may hide one of a context's own.
    @Test func theHeaderSharesNoKeyWithAContext() {
        let headerKeys = Set(Self.header.fields.map(\.key))
        for (template, type) in Self.contexts where template != "header" {
            let shared = headerKeys.intersection(TemplateKeys(of: type).fields.map(\.key))
            #expect(shared.isEmpty, "\(template): \(shared.sorted())")
        }
    }

    /// What swift-mustache gets: dictionaries of exactly the keys the contract lists, a nil optional left out
    /// (so Mustache looks the name up in the enclosing contexts), lists as arrays, values as they are.
    @Test func aContextBecomesDictionariesOfItsKeys() throws {
        let context = SubtypeContext(structure: [
            SubtypeContext.Structure(
                name: "point", typeName: "Point",
                properties: [SubtypeContext.Member(swiftName: "x", key: "x", keyDiffers: false, swiftType: "Swift.Int", last: true)],
                versions: nil, plural: nil, isComposite: false, compositeColumns: [])
        ])
        let header = HeaderContext(
            fileName: "Point.swift", source: "point.json", organization: nil, access: "public", testable: false, regenerate: "r")
        let value = TemplateValue.dictionary(header: header, context)
        #expect(Set(value.keys) == ["fileName", "source", "access", "testable", "regenerate", "structure"])
        let structures = try #require(value["structure"] as? [[String: Any]])
        #expect(structures.count == 1)
        let keys = TemplateKeys(of: SubtypeContext.Structure.self).fields.map(\.key)
        #expect(Set(structures[0].keys) == Set(keys).subtracting(["versions", "plural"]))
        #expect(structures[0]["isComposite"] as? Bool == false)
        let members = try #require(structures[0]["properties"] as? [[String: Any]])
        #expect(members.first?["swiftType"] as? String == "Swift.Int")
        #expect(members.first?["last"] as? Bool == true)
    }

    // MARK: The documentation

    static let article = repositoryRoot.appendingPathComponent("Sources/LucidRuntime/LucidRuntime.docc/Templates.md")

    /// `Templates.md` lists each template's keys, and the keys of each of its lists' items: `## name.mustache`
    /// sections, `### \`path\`` subsections (several paths when they share a type), one `| \`key\` | kind |`
    /// row per key.
    static func documentedKeys() throws -> [String: [String: [String: String]]] {
        var result: [String: [String: [String: String]]] = [:] // template → path → key → kind
        var template: String?
        var paths: [String] = []
        for line in try String(contentsOf: article, encoding: .utf8).components(separatedBy: "\n") {
            if line.hasPrefix("## ") {
                template = line.firstMatch(of: /(\w+)\.mustache/).map { String($0.1) }
                paths = [""]
            } else if line.hasPrefix("### "), template != nil {
                paths = line.matches(of: /`([\w.]+)`/).map { String($0.1) }
            } else if let template, let row = line.firstMatch(of: /^\| `(\w+)` \| ([^|]+?) \|/) {
                for path in paths { result[template, default: [:]][path, default: [:]][String(row.1)] = String(row.2) }
            }
        }
        return result
    }

    @Test func theArticleListsEveryKeyOfEveryContext() throws {
        let documented = try Self.documentedKeys()
        #expect(Set(documented.keys) == Set(Self.contexts.keys), "Templates.md: one `## <name>.mustache` section per template")
        for (template, type) in Self.contexts {
            let scopes = TemplateKeys(of: type).scopes()
            let expected = Dictionary(uniqueKeysWithValues: scopes.map { ($0.path, $0.keys) })
            let sections = documented[template] ?? [:]
            #expect(
                Set(sections.keys) == Set(expected.keys), "Templates.md, \(template).mustache: the sections for \(expected.keys.sorted())")
            for (path, keys) in expected {
                let rows = sections[path] ?? [:]
                let wanted = Dictionary(uniqueKeysWithValues: keys.fields.map { ($0.key, $0.slot.kindName) })
                #expect(rows == wanted, "Templates.md, \(template).mustache, `\(path.isEmpty ? "(top level)" : path)`")
            }
        }
    }
}
