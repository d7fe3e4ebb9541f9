/** Access modes of volumes and claims: validation and kubectl's short form. */
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { invalid, notSupported, required } from "../../../../shared/api/validation/field_errors.ts";

const MODES: Record<string, string> = {
  ReadWriteOnce: "RWO",
  ReadOnlyMany: "ROX",
  ReadWriteMany: "RWX",
  ReadWriteOncePod: "RWOP",
};
const SUPPORTED = ["ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"];

/** Validates `spec.accessModes` (at least one, each supported, ReadWriteOncePod alone). */
export function validateAccessModes(field: string, v: unknown): FieldError[] {
  const modes = Array.isArray(v) ? v : [];
  if (modes.length === 0) return [required(field, "at least 1 access mode is required")];
  const errs: FieldError[] = [];
  for (const m of modes) {
    if (!SUPPORTED.includes(String(m))) errs.push(notSupported(field, m, SUPPORTED));
  }
  if (modes.includes("ReadWriteOncePod") && modes.length > 1) {
    errs.push(invalid(field, modes, "may not use ReadWriteOncePod with other access modes"));
  }
  return errs;
}

/** `RWO,ROX,RWX,RWOP` in that order, each once (kube's GetAccessModesAsString). */
export function accessModesText(v: unknown): string {
  const modes = Array.isArray(v) ? v.map(String) : [];
  return Object.keys(MODES).filter((m) => modes.includes(m)).map((m) => MODES[m]).join(",");
}
