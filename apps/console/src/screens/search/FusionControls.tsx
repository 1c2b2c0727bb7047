import { SelectField, TextField } from '../../ui/fields';
import { DEFAULT_FUSIONS, FUSION_METHODS, type Fusion, type FusionMethod } from './fusion';

/** Numbers typed in a field; what is not a number is sent as it is typed, for the API to refuse. */
function number(text: string): number {
  return text.trim() === '' ? Number.NaN : Number(text);
}

/** The fusion method of the hybrid column and its parameters (weights, k, alpha). */
export function FusionControls({ fusion, onChange, issues }: { fusion: Fusion; onChange: (fusion: Fusion) => void; issues: Record<string, string> }) {
  const weights = (w: { vector: number; keyword: number }, set: (w: { vector: number; keyword: number }) => void) => (
    <>
      <TextField label="Vector weight" name="weight_vector" inputMode="decimal" value={String(w.vector)} onChange={(v) => set({ ...w, vector: number(v) })} error={issues['vector']} />
      <TextField label="Keyword weight" name="weight_keyword" inputMode="decimal" value={String(w.keyword)} onChange={(v) => set({ ...w, keyword: number(v) })} error={issues['keyword']} />
    </>
  );
  return (
    <fieldset className="row">
      <legend>Hybrid fusion</legend>
      <SelectField<FusionMethod> label="Method" name="fusion" value={fusion.method} onChange={(method) => onChange(DEFAULT_FUSIONS[method])} options={FUSION_METHODS} />
      {fusion.method === 'weighted_score' ? (
        <TextField label="Vector weight (0–1)" name="weight" inputMode="decimal" value={String(fusion.weight)} onChange={(v) => onChange({ ...fusion, weight: number(v) })} error={issues['weight']} />
      ) : null}
      {fusion.method === 'relative_score' ? (
        <TextField label="Alpha (0–1)" name="alpha" inputMode="decimal" value={String(fusion.alpha)} onChange={(v) => onChange({ ...fusion, alpha: number(v) })} error={issues['alpha']} />
      ) : null}
      {fusion.method === 'rrf' ? (
        <>
          <TextField label="k" name="k" inputMode="numeric" value={String(fusion.k)} onChange={(v) => onChange({ ...fusion, k: number(v) })} error={issues['k']} />
          {weights(fusion.weights, (w) => onChange({ ...fusion, weights: w }))}
        </>
      ) : null}
      {fusion.method === 'dbsf' ? weights(fusion.weights, (w) => onChange({ ...fusion, weights: w })) : null}
    </fieldset>
  );
}
