import { Command } from 'commander';
import { publicBaseUrl } from '../../config.js';
import { action } from '../context.js';

// First-run set-up for a server without a browser near its output: one more one-time link, valid
// until it is used or until a server starts on this database. Refused once a console user exists.

export function setupLinkCommand(): Command {
  return new Command('setup-link')
    .description('print a one-time link that creates the first organisation and its owner (only while no console user exists)')
    .action(
      action(async (ctx) => {
        const url = `${publicBaseUrl(ctx.config)}/console/setup/${await ctx.setup.newLink()}`;
        return {
          json: { url },
          text: [
            'One-time set-up link: it creates the first organisation and its owner, works once, and only until the server restarts:',
            url,
          ].join('\n'),
        };
      }),
    );
}
