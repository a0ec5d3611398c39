// schema.GroupResource (k8s.io/apimachinery/pkg/runtime/schema/group_version.go): how errors,
// metrics, health checks and storage name a resource.

/** A resource as errors name it: `pods`, or `deployments.apps` for a group (GroupResource). */
export interface GroupResource {
  group?: string;
  resource: string;
}

/** GroupResource.String(): `resource.group`, or the bare resource for the core group. */
export function groupResourceString(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

/** The GroupResource string of a resource definition (`plural` is its resource). */
export function qualifiedResource(definition: { plural: string; group?: string }): string {
  return groupResourceString({ resource: definition.plural, group: definition.group ?? '' });
}
