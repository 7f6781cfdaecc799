import { type Static, Type } from '@sinclair/typebox';

/** The SBOM formats the platform reads: CycloneDX (JSON) and SPDX (JSON, JSON-LD). */
export const SbomFormatSchema = Type.Union([Type.Literal('cyclonedx'), Type.Literal('spdx')]);
export type SbomFormat = Static<typeof SbomFormatSchema>;
