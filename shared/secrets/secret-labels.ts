import { ConflictError, ValidationError } from '../platform/errors.ts';

/**
 * Staging labels (decisions.md, "Rotation"): each version of a secret carries 0 to 20 labels, a label is on at most
 * one version, and `AWSCURRENT` is on exactly one: the secret's `currentVersion`, whose value every reveal without a
 * version or stage answers. Moving `AWSCURRENT` moves `AWSPREVIOUS` to the version that had it. The head keeps every
 * other label as `labels` (label → version); a head written before labels existed has none stored, and reads as
 * `AWSPREVIOUS` on the version before the current one, which is what it had. Pure functions: the writer and the
 * label moves decide with them, and each rule has its own unit test.
 */

export const AWSCURRENT = 'AWSCURRENT';
export const AWSPREVIOUS = 'AWSPREVIOUS';
export const AWSPENDING = 'AWSPENDING';

/** A label's characters and length (decisions.md: 1 to 256 of `[A-Za-z0-9_.-]`). */
export const STAGE_PATTERN = /^[A-Za-z0-9_.-]{1,256}$/;
export const MAX_STAGES_PER_VERSION = 20;

/** What the labels of a secret are read from: its head. */
export interface Labelled {
  currentVersion: number;
  /** Every label by name (AWSCURRENT too, which `currentVersion` decides); absent on heads written before labels existed. */
  labels?: Record<string, number> | undefined;
  /** The highest version number, pending ones included; absent when it is the current one. */
  latestVersion?: number | undefined;
}

/** A label moved where its rules do not allow: InvalidParameterException on the AWS API, VALIDATION_ERROR on REST. */
export class StageRuleError extends ValidationError {}

/**
 * A VersionId and a VersionStage that name different versions (GetSecretValue given both, as AWS's rotation templates
 * call it): a request that does not fit the secret's state, InvalidRequestException on the AWS API (CONFLICT).
 */
export class StageMismatchError extends ConflictError {}

/** Every label of the secret and the version it is on, AWSCURRENT included. */
export function labelsOf(secret: Labelled): Record<string, number> {
  // A secret created without a value (decisions.md v1.4) has no version, so no label.
  if (secret.currentVersion === 0) return {};
  const stored = secret.labels ?? (secret.currentVersion > 1 ? { [AWSPREVIOUS]: secret.currentVersion - 1 } : {});
  return { ...stored, [AWSCURRENT]: secret.currentVersion };
}

/** The highest version number of the secret: the next version takes the number after it. */
export const latestVersionOf = (secret: Labelled | undefined) => (secret ? Math.max(secret.latestVersion ?? 0, secret.currentVersion) : 0);

const ORDER = [AWSCURRENT, AWSPREVIOUS, AWSPENDING];
const byOrder = (a: string, b: string) => {
  const ia = ORDER.indexOf(a);
  const ib = ORDER.indexOf(b);
  if (ia !== -1 || ib !== -1) return (ia === -1 ? ORDER.length : ia) - (ib === -1 ? ORDER.length : ib);
  return a < b ? -1 : a > b ? 1 : 0;
};

/** The labels on one version, AWS's own first. */
export function stagesOf(secret: Labelled, version: number): string[] {
  return Object.entries(labelsOf(secret))
    .filter(([, on]) => on === version)
    .map(([label]) => label)
    .sort(byOrder);
}

/** The labelled versions and their labels, by version number. */
export function stagesByVersion(secret: Labelled): Map<number, string[]> {
  const found = new Map<number, string[]>();
  for (const [label, version] of Object.entries(labelsOf(secret))) found.set(version, [...(found.get(version) ?? []), label]);
  for (const labels of found.values()) labels.sort(byOrder);
  return found;
}

/** The labels part of a head after a change: the current version and every other label. */
export interface LabelState {
  currentVersion: number;
  labels: Record<string, number>;
}

/**
 * The labels as the head stores them: every label, AWSCURRENT included, so the map is never empty (an empty map is
 * what DynamoDB Local's stream cannot describe, and a head without one reads as written before labels existed).
 */
export const storedLabels = (state: LabelState): Record<string, number> => ({ ...state.labels, [AWSCURRENT]: state.currentVersion });

function stateOf(all: Record<string, number>): LabelState {
  const { [AWSCURRENT]: currentVersion, ...labels } = all;
  return { currentVersion: currentVersion!, labels };
}

/** Puts `label` on `version`, off whichever version had it; moving AWSCURRENT moves AWSPREVIOUS to its old version. */
function place(all: Record<string, number>, label: string, version: number): void {
  const had = all[label];
  all[label] = version;
  if (label === AWSCURRENT && had !== undefined && had !== version) all[AWSPREVIOUS] = had;
}

/** Refuses labels that break the rules of their names, or more than 20 on one version. */
export function checkStages(stages: readonly string[], field: string): void {
  for (const stage of stages)
    if (!STAGE_PATTERN.test(stage)) throw new StageRuleError(`${field}: a staging label is 1 to 256 of A-Z a-z 0-9 _ . -`);
  if (new Set(stages).size !== stages.length) throw new StageRuleError(`${field}: a staging label is given twice`);
}

function checkPerVersion(all: Record<string, number>, field: string): void {
  const counts = new Map<number, number>();
  for (const version of Object.values(all)) counts.set(version, (counts.get(version) ?? 0) + 1);
  for (const [version, count] of counts)
    if (count > MAX_STAGES_PER_VERSION)
      throw new StageRuleError(`${field}: version ${version} would carry ${count} staging labels; at most ${MAX_STAGES_PER_VERSION}`);
}

/**
 * The labels after a new version `version` is written with `stages` (default: AWSCURRENT only): each label moves to
 * it, and AWSCURRENT brings AWSPREVIOUS to the version that had it. Without AWSCURRENT the current version stays.
 * A new secret (no `secret`) must take AWSCURRENT.
 */
export function labelsAfterWrite(secret: Labelled | undefined, version: number, stages: readonly string[] = [AWSCURRENT]): LabelState {
  if ((!secret || secret.currentVersion === 0) && !stages.includes(AWSCURRENT))
    throw new StageRuleError('VersionStages: the first version of a secret must be labelled AWSCURRENT');
  const all = secret ? labelsOf(secret) : {};
  for (const stage of stages) place(all, stage, version);
  checkPerVersion(all, 'VersionStages');
  return stateOf(all);
}

/**
 * Refuses a `stage` that is not on `version`: when GetSecretValue names both a VersionId and a VersionStage, AWS
 * answers the version only when they agree (decisions.md, "Versions without labels").
 */
export function checkStageOn(secret: Labelled, version: number, stage: string): void {
  if (!stagesOf(secret, version).includes(stage))
    throw new StageMismatchError(`VersionStage: ${stage} is not on the version that VersionId names`);
}

/**
 * Refuses to move `stage` off the version that has it unless `removeFrom` is that version (AWS: "If the label is
 * attached and you either do not specify this parameter, or the version ID does not match, then the operation
 * fails"); `removeFrom` is undefined when RemoveFromVersionId is not given or names no version.
 */
export function checkLabelRelease(secret: Labelled, stage: string, moveTo: number | undefined, removeFrom: number | undefined): void {
  const has = labelsOf(secret)[stage];
  if (has !== undefined && has !== moveTo && removeFrom !== has)
    throw new StageRuleError(`RemoveFromVersionId: ${stage} is on another version, which must be named to move it`);
}

/**
 * The labels after `UpdateSecretVersionStage` moves `stage` to `moveTo` (or, without it, takes it off): the version
 * that has it must be named as `removeFrom`, and only that one; AWSCURRENT can be moved but never taken off.
 */
export function labelsAfterMove(secret: Labelled, stage: string, moveTo: number | undefined, removeFrom: number | undefined): LabelState {
  checkStages([stage], 'VersionStage');
  const all = labelsOf(secret);
  const has = all[stage];
  if (moveTo === undefined && removeFrom === undefined)
    throw new StageRuleError('MoveToVersionId or RemoveFromVersionId: give at least one');
  checkLabelRelease(secret, stage, moveTo, removeFrom);
  if (removeFrom !== undefined && has !== removeFrom) throw new StageRuleError(`RemoveFromVersionId: that version does not carry ${stage}`);
  if (moveTo === undefined) {
    if (stage === AWSCURRENT) throw new StageRuleError('VersionStage: AWSCURRENT can be moved to another version, not taken off');
    delete all[stage];
  } else place(all, stage, moveTo);
  checkPerVersion(all, 'VersionStage');
  return stateOf(all);
}

/** The labels after `stage` is taken off `version` if it is there (a failed rotation's AWSPENDING); unchanged otherwise. */
export function labelsWithout(secret: Labelled, stage: string, version: number): LabelState {
  const all = labelsOf(secret);
  if (stage !== AWSCURRENT && all[stage] === version) delete all[stage];
  return stateOf(all);
}

/** Keeps only the entries of a by-version map whose version still carries a label (the head keeps nothing else). */
export function keepLabelled<T>(byVersion: Record<string, T> | undefined, state: LabelState): Record<string, T> | undefined {
  if (!byVersion) return undefined;
  const labelled = new Set([state.currentVersion, ...Object.values(state.labels)].map(String));
  const kept = Object.fromEntries(Object.entries(byVersion).filter(([version]) => labelled.has(version)));
  return Object.keys(kept).length ? kept : undefined;
}
