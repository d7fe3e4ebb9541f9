/**
 * PatchApplier: what a patch type is to the PATCH handler, a function from the stored object
 * and the decoded request to the patched object.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import type { KindDef, PatchType } from "../registry/generic/kind.ts";
import type { WriteQuery } from "./write_options.ts";
import type { YamlDecoder } from "./yaml_decoder.ts";

/** What a patch type's applier receives: the stored object and the request, decoded. */
export interface PatchArgs {
  /** The stored object (absent when it does not exist: apply creates it). */
  current?: KubeObject;
  /** The raw patch body. */
  body: Uint8Array;
  /** The kind patched. */
  def: KindDef;
  /** The object's name (from the URL). */
  name: string;
  /** The subresource patched; "" for the main resource. */
  subresource: string;
  /** The request's Content-Type, as sent. */
  contentType: string;
  query: WriteQuery;
  /** The `force` query parameter (apply only). */
  force: boolean;
  /** Warnings for the response, as plain texts; the applier adds to them. */
  warnings: string[];
  /** Parses large YAML (apply configurations) off the request thread. */
  yaml?: YamlDecoder;
}

/** Computes the patched object (or, for apply, the object to create). */
export type PatchApplier = (args: PatchArgs) => KubeObject | Promise<KubeObject>;

/** The appliers of the patch types the server serves. */
export type PatchAppliers = ReadonlyMap<PatchType, PatchApplier>;
