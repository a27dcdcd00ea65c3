import type { RunResult } from '../findings/types.js';
import { coverageRows } from './coverage-lines.js';

// What Allure 2 and 3 show beside the tests: environment.properties (the target, the tool and its
// version, how the run was made) and executor.json (who ran it: the CI build when there is one, so
// that a report links back to its job).

export function allureEnvironment(result: RunResult): Record<string, string> {
  const info: Record<string, string> = {
    target: result.target,
    tool: `${result.tool} ${result.version}`,
    face: result.run.face === 'suite' ? 'run (suite)' : 'traffic (validate, proxy, merge)',
    formats: result.run.formats.join(', '),
    strict: String(result.strict),
  };
  if (result.generated) info.seed = String(result.generated.seed);
  // Coverage shows on the report's overview beside the target: what the run's exchanges exercised.
  for (const row of coverageRows(result.coverage)) {
    const members = [row.request && `request members ${row.request}`, row.response && `answer members ${row.response}`];
    info[`coverage ${row.operation}`] = [row.exchanges, `answered ${row.statuses}`, ...members.filter(Boolean)].join(
      '; ',
    );
  }
  return info;
}

interface Executor {
  name: string;
  type: string;
  reportName: string;
  buildName?: string;
  buildOrder?: number;
  buildUrl?: string;
}

export function allureExecutor(result: RunResult, env: NodeJS.ProcessEnv = process.env): Executor {
  const reportName = `${result.tool} ${result.version}: ${result.target}`;
  if (env.GITHUB_ACTIONS === 'true' && env.GITHUB_RUN_ID) {
    const server = env.GITHUB_SERVER_URL ?? 'https://github.com';
    return {
      name: 'GitHub Actions',
      type: 'github',
      reportName,
      buildName: `${env.GITHUB_WORKFLOW ?? 'workflow'} #${env.GITHUB_RUN_NUMBER ?? env.GITHUB_RUN_ID}`,
      ...(env.GITHUB_RUN_NUMBER ? { buildOrder: Number(env.GITHUB_RUN_NUMBER) } : {}),
      buildUrl: `${server}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}`,
    };
  }
  if (env.GITLAB_CI === 'true' && env.CI_PIPELINE_URL) {
    return {
      name: 'GitLab CI',
      type: 'gitlab',
      reportName,
      buildName: `${env.CI_JOB_NAME ?? 'job'} #${env.CI_PIPELINE_IID ?? env.CI_PIPELINE_ID ?? ''}`,
      ...(env.CI_PIPELINE_IID ? { buildOrder: Number(env.CI_PIPELINE_IID) } : {}),
      buildUrl: env.CI_JOB_URL ?? env.CI_PIPELINE_URL,
    };
  }
  return { name: result.tool, type: result.tool, reportName };
}
