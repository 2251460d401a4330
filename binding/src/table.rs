//! The operation table: every operation of the bindings, declared once.

/// Calls `$callback!` with the table of every operation, so that each
/// binding crate turns the entries into its own functions (the callback
/// pattern: the table is data, each binding's macro is the code).
///
/// `for_each_operation!(my_macro EXTRA...)` expands to
/// `my_macro! { [EXTRA...] free {..} limited {..} factory {..} definition {..} catalog {..} session {..} }`:
/// the caller's extra tokens (in brackets: hand-written items a binding
/// needs inside the same generated blocks), then one section per receiver.
/// Each entry is
///
/// ```text
/// /// docs
/// TARGETS name "jsName" (arg: kind [= None], ...) -> result;
/// ```
///
/// - TARGETS: `all` (Python, Node, WebAssembly) or `native` (Python and
///   Node: the live-cluster calls, kept out of the WebAssembly module).
/// - sections (receivers): `free` (module functions), `limited` (module
///   functions whose objects are read within the call's limits: every
///   binding appends an optional `limits` argument), `factory` (make
///   definitions: Python module functions, JavaScript statics of
///   `NativeDefinition`), `definition` (methods of a compiled definition),
///   `catalog` (methods of an engine), `session` (methods of a cluster
///   protocol session, [`crate::Session`]).
/// - argument kinds: `text` (a string: the caller's YAML/JSON, JSON the
///   language layer wrote, a name), `opt_text`, `bytes`, `expression` (a
///   jq expression, UTF-8 bytes in Python), `object` (one object: text, or
///   a host value in Python), `json_value` (any JSON value: JSON text in
///   JavaScript, always a host value in Python, even `bytes`), `opt_object`, `objects` (several list texts
///   or values, such as pages of list responses). `= None` makes a trailing
///   argument optional.
/// - results: `json` (JSON text in every binding), `value` (JSON text in
///   JavaScript, Python objects in Python), `definition`,
///   `opt_definition`, `definitions` (compiled-definition handles).
///
/// The function behind `section name` is `ops::section::name`. The
/// entries' docs are `#[doc]` attributes, not `///` comments: napi copies
/// them into `native.d.ts` as they are written, and a `///` comment reaches
/// it as a raw string (`r"..."`).
#[macro_export]
macro_rules! for_each_operation {
    ($callback:ident $($extra:tt)*) => {
        $callback! {
            [$($extra)*]
            free {
                #[doc = " The default limits, as JSON (camelCase)."]
                all default_limits "defaultLimits" () -> json;
                #[doc = " Complete limits from camelCase JSON (missing fields: defaults)."]
                all check_limits "checkLimits" (limits: opt_text = None) -> json;
                #[doc = " Every document of a YAML/JSON text, as a JSON array."]
                all parse "parse" (text: text, limits: opt_text = None) -> json;
                #[doc = " Like `parse`, for bytes (invalid UTF-8 is a located parse error)."]
                all parse_bytes "parseBytes" (bytes: bytes, limits: opt_text = None) -> json;
                #[doc = " Where things are in a YAML/JSON text: `{objects, places}` (every"]
                #[doc = " object of the text, the answer to each question of `queries`, a"]
                #[doc = " JSON array of paths or `{path, document?, object?, span?, nearest?}`)."]
                all source_map "sourceMap" (text: text, queries: opt_text = None, limits: opt_text = None) -> json;
                #[doc = " Validate every definition of a text: `[{name, valid, gvk?, findings}]`."]
                all validate "validate" (text: text, limits: opt_text = None) -> json;
                #[doc = " Every error code with the name of its error class: `[{code, class}]`."]
                all error_codes "errorCodes" () -> json;
                #[doc = " The bundled definition files: `{file name: YAML text}`."]
                all catalog_sources "catalogSources" () -> json;
                #[doc = " GPU and pod totals of a listing (the JSON array `list_workloads`"]
                #[doc = " returns) by namespace and by type."]
                native usage "usage" (rows: text) -> json;
            }
            limited {
                #[doc = " Run one jq expression on an input: every output."]
                all evaluate "evaluate" (expression: expression, input: json_value) -> value;
                #[doc = " Every amount of a value (results: resolved, attributions), written for"]
                #[doc = " people: `{millicores: {n: text}, bytes: {n: text}}`."]
                all human_amounts "humanAmounts" (value: json_value) -> json;
                #[doc = " The controller owner kinds the objects of `items` (pods and the"]
                #[doc = " owners fetched so far) reference but do not hold, without those of"]
                #[doc = " `skip` (a JSON array of `{apiVersion, kind}`): `[{apiVersion, kind}]`."]
                native missing_owners "missingOwners" (items: objects, skip: text) -> json;
            }
            factory {
                #[doc = " Compile the one definition of a YAML/JSON text."]
                all compile "compile" (text: text, limits: opt_text = None) -> definition;
                #[doc = " Compile every definition of a YAML/JSON text."]
                all compile_all "compileAll" (text: text, limits: opt_text = None) -> definitions;
                #[doc = " Compile every definition of an object given as JSON."]
                all compile_object "compileObject" (json: text, limits: opt_text = None) -> definitions;
                #[doc = " Compile the one definition of an object given as JSON."]
                all compile_one_object "compileOneObject" (json: text, limits: opt_text = None) -> definition;
                #[doc = " Compile a definition again from its JSON, limits and origin"]
                #[doc = " (Python's unpickling)."]
                native rebuild "rebuild" (definition: text, limits: text, origin: text) -> definition;
            }
            definition {
                #[doc = " `{name, origin, gvk: {group, version, kind}, components, canSuspend,"]
                #[doc = " warnings, limits}` as JSON."]
                all info "info" () -> json;
                #[doc = " The definition as read, as JSON."]
                all definition_json "definitionJson" () -> json;
                #[doc = " Resolve (with the live state when `pods` is given)."]
                all resolve "resolve" (obj: object, pods: opt_object = None) -> value;
                #[doc = " Why the workload is where it is: `{workload, statuses, findings}`,"]
                #[doc = " ranked, from its pods (and their owners), events and related objects"]
                #[doc = " (Kueue `Workload`s, gang schedulers' `PodGroup`s and `PodGang`s)."]
                all diagnose "diagnose" (obj: object, pods: opt_object = None, events: opt_object = None, related: opt_object = None) -> value;
                #[doc = " The root status (`null` when the definition has none)."]
                all status "status" (obj: object) -> value;
                #[doc = " Why the object has its status: every matcher of every status"]
                #[doc = " category with its outcome and reason."]
                all explain_status "explainStatus" (obj: object) -> value;
                #[doc = " Write values through the definition's paths: `{object, patch}`."]
                all update "update" (obj: object, request: object) -> value;
                #[doc = " Apply the suspend actions: `{object, patch}`."]
                all suspend "suspend" (obj: object) -> value;
                #[doc = " Apply the resume actions: `{object, patch}`."]
                all resume "resume" (obj: object) -> value;
                #[doc = " Place pods under components and instances (`obj` may be null)."]
                all attribute_pods "attributePods" (obj: opt_object, pods: object) -> value;
                #[doc = " Gang-scheduling groups of the workload's pods."]
                all gang_groups "gangGroups" (obj: object, pods: object) -> value;
                #[doc = " `sourceMap` of a text, with the pod templates of the objects this"]
                #[doc = " definition covers; questions may name a `component` (and `instance`)."]
                all source_map "sourceMap" (text: text, queries: opt_text = None) -> json;
                #[doc = " Gang-scheduling groups with the pods (and owners) given as several"]
                #[doc = " inputs, such as the pages of list responses."]
                native gang_groups_pages "gangGroupsPages" (obj: object, pages: objects) -> value;
                #[doc = " The structure gang scheduling works on: components, leaves, parents,"]
                #[doc = " children, `hasScaleDefinition` and the candidate members."]
                all gang_structure "gangStructure" () -> value;
                #[doc = " The subtree scale (gang minimum members) of a component of the"]
                #[doc = " object, of one of its instances when given (a number)."]
                all subtree_scale "subtreeScale" (obj: object, component: text, instance: opt_text = None) -> value;
            }
            catalog {
                #[doc = " The definition for an apiVersion and kind."]
                all lookup "lookup" (api_version: text, kind: text) -> opt_definition;
                #[doc = " The definition for an object, by its apiVersion and kind."]
                all lookup_object "lookupObject" (obj: object) -> definition;
                #[doc = " A definition by name."]
                all get "get" (name: text) -> opt_definition;
                #[doc = " Every definition, sorted by name."]
                all definitions "definitions" () -> definitions;
                #[doc = " The engine's limits, as JSON (camelCase)."]
                all limits "limits" () -> json;
                #[doc = " `sourceMap` of a text, with the pod templates of each object a"]
                #[doc = " definition of the catalog covers."]
                all source_map "sourceMap" (text: text, queries: opt_text = None) -> json;
                #[doc = " Choose the definition by GVK and resolve (with pods: live state)."]
                all resolve "resolve" (obj: object, pods: opt_object = None) -> value;
                #[doc = " Resolve with the pods (and owners) given as several inputs, such as"]
                #[doc = " the pages of list responses."]
                native resolve_pages "resolvePages" (obj: object, pages: objects) -> value;
                #[doc = " `diagnose` with the definition chosen by GVK."]
                all diagnose "diagnose" (obj: object, pods: opt_object = None, events: opt_object = None, related: opt_object = None) -> value;
                #[doc = " Resolve with every pod of the workload's namespace and their owners"]
                #[doc = " (several inputs, such as the pages of list responses): other"]
                #[doc = " workloads' pods are left out, look-alikes kept as strays."]
                native resolve_in_namespace "resolveInNamespace" (obj: object, items: objects) -> json;
                #[doc = " The gang-scheduling groups of a workload's pods, its definition"]
                #[doc = " chosen by GVK; the pods (and owners) as several inputs."]
                native gang_groups "gangGroups" (obj: object, pages: objects) -> value;
                #[doc = " The served resource a type token names; `served` is a JSON array"]
                #[doc = " of `{group, version, kind, plural, ...}`."]
                native find_type "findType" (token: text, served: text) -> json;
                #[doc = " The served resources a definition covers."]
                native covered_types "coveredTypes" (served: text) -> json;
                #[doc = " One summary row per object of `objects` (by namespace and name), with"]
                #[doc = " `owners` to follow controller chains through; `options` is"]
                #[doc = " `{topLevelOnly, phases}` as JSON."]
                native list_workloads "listWorkloads" (objects: objects, owners: objects, options: opt_text = None) -> json;
                #[doc = " Start one operation of the cluster protocol: `operation` is the JSON"]
                #[doc = " of a `ClusterOp` (`\"discover\"`, `{\"list\": ListQuery}`,"]
                #[doc = " `{\"describe\": DescribeQuery}`); `server` names the server in messages."]
                native cluster_session "clusterSession" (operation: text, server: opt_text = None) -> session;
            }
            session {
                #[doc = " The requests to make now, a JSON array of `{path}` (empty: the"]
                #[doc = " operation is over)."]
                native requests "requests" () -> json;
                #[doc = " The replies to the requests, in their order: a JSON array of"]
                #[doc = " `{status, body}` (the server answered) or `{error}` (it could not be"]
                #[doc = " reached). A failure that ends the operation is this call's error."]
                native feed "feed" (replies: text) -> json;
                #[doc = " The outcome (`ClusterOutcome::to_value`), or the error that ended"]
                #[doc = " the operation. The session is then spent."]
                native finish "finish" () -> value;
            }
        }
    };
}
