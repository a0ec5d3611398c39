import type * as corev1 from 'kubernetes-types/core/v1.js';
import { kindStrategy } from '../../kind-helpers.js';
import type { TypedObject } from '../../rest/typed-object.js';
import { defaultPodTemplate, validatePodTemplate } from '../pod/template.js';

// PodTemplates: pkg/registry/core/podtemplate/strategy.go (generation follows the template) and
// ValidatePodTemplate (pkg/apis/core/validation).

/** A PodTemplate as decoded (kubernetes-types' core/v1 PodTemplate). */
export type PodTemplate = TypedObject<corev1.PodTemplate>;

export const podTemplateStrategy = kindStrategy<PodTemplate>({
  generation: true,
  specOf: (podTemplate) => podTemplate.template,
  decode(podTemplate) {
    defaultPodTemplate((podTemplate.template ??= {}));
  },
  validate: (podTemplate) =>
    validatePodTemplate(podTemplate.template, 'template', ['Always', 'OnFailure', 'Never']),
});
