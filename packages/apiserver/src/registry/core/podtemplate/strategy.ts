import { child, kindStrategy } from '../../kind-helpers.js';
import { defaultPodTemplate, validatePodTemplate } from '../pod/template.js';
import type { PodTemplateSpec } from '../pod/validation.js';

// PodTemplates: pkg/registry/core/podtemplate/strategy.go (generation follows the template) and
// ValidatePodTemplate (pkg/apis/core/validation).

export const podTemplateStrategy = kindStrategy({
  generation: true,
  specOf: (o) => o['template'],
  decode(template) {
    defaultPodTemplate(child(template, 'template'));
  },
  validate: (template) =>
    validatePodTemplate(template['template'] as PodTemplateSpec | undefined, 'template', [
      'Always',
      'OnFailure',
      'Never',
    ]),
});
